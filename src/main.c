/* wobble — parse the command, run it, report, exit.  The only place that
 * prints errors and chooses the exit code (see WbStatus in core/error.h). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "scene/schema.h"

/* How a command's options went, besides its status. */
typedef struct Outcome {
    bool usage; /* the options did not parse: the command's help is the place to look */
    bool help;  /* --help: print the command's help, do not run it */
    bool json;  /* --json: a failure is also a JSON object on stdout */
    bool json_stderr; /* ... on stderr, as stdout carries the output (-o -) */
} Outcome;

/* One command.  The handler parses argv (argv[0] is the command's name) into
 * the command's options, runs it unless they failed or asked for help, and
 * frees them; only main prints. */
typedef struct Command {
    const char *name;
    WbStatus (*handler)(int argc, char **argv, Outcome *out, WbError *err);
    void (*help)(FILE *f);
} Command;

/* Note how parsing went; true when the command should run. */
static bool parsed(WbStatus st, bool want_help, Outcome *out)
{
    out->usage = st != WB_OK;
    out->help = st == WB_OK && want_help;
    return st == WB_OK && !want_help;
}

/* --json among a command's words (before any "--"), also when parsing
 * stopped before reaching it. */
static bool wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            return true;
    return false;
}

static WbStatus render(int argc, char **argv, Outcome *out, WbError *err)
{
    WbRenderOptions o;
    WbStatus st = wb_cli_parse_render(argc, argv, &o, err);
    out->json = o.json || wants_json(argc, argv);
    out->json_stderr = o.output && !strcmp(o.output, "-");
    if (parsed(st, o.want_help, out))
        st = wb_cmd_render(&o, err);
    wb_render_options_free(&o);
    return st;
}

static WbStatus bake(int argc, char **argv, Outcome *out, WbError *err)
{
    WbBakeOptions o;
    WbStatus st = wb_cli_parse_bake(argc, argv, &o, err);
    if (parsed(st, o.r.want_help, out))
        st = wb_cmd_bake(&o, err);
    wb_render_options_free(&o.r);
    return st;
}

static WbStatus export_motion(int argc, char **argv, Outcome *out, WbError *err)
{
    WbExportOptions o;
    WbStatus st = wb_cli_parse_export(argc, argv, &o, err);
    if (parsed(st, o.r.want_help, out))
        st = wb_cmd_export(&o, err);
    wb_render_options_free(&o.r);
    return st;
}

static WbStatus check(int argc, char **argv, Outcome *out, WbError *err)
{
    WbCheckOptions o;
    WbStatus st = wb_cli_parse_check(argc, argv, &o, err);
    out->json = o.r.json || wants_json(argc, argv);
    if (parsed(st, o.r.want_help, out))
        st = wb_cmd_check(&o, err);
    wb_render_options_free(&o.r);
    return st;
}

static WbStatus presets(int argc, char **argv, Outcome *out, WbError *err)
{
    WbPresetsOptions o;
    WbStatus st = wb_cli_parse_presets(argc, argv, &o, err);
    return parsed(st, o.want_help, out) ? wb_cmd_presets(&o, err) : st;
}

static WbStatus info(int argc, char **argv, Outcome *out, WbError *err)
{
    WbInfoOptions o;
    WbStatus st = wb_cli_parse_info(argc, argv, &o, err);
    return parsed(st, o.want_help, out) ? wb_cmd_info(&o, err) : st;
}

static WbStatus testcard(int argc, char **argv, Outcome *out, WbError *err)
{
    WbTestcardOptions o;
    WbStatus st = wb_cli_parse_testcard(argc, argv, &o, err);
    return parsed(st, o.want_help, out) ? wb_cmd_testcard(&o, err) : st;
}

static WbStatus weights(int argc, char **argv, Outcome *out, WbError *err)
{
    WbWeightsOptions o;
    WbStatus st = wb_cli_parse_weights(argc, argv, &o, err);
    return parsed(st, o.want_help, out) ? wb_cmd_weights(&o, err) : st;
}

static const Command commands[] = {
    {"render", render, wb_cli_help_render},
    {"check", check, wb_cli_help_check},
    {"bake", bake, wb_cli_help_bake},
    {"export", export_motion, wb_cli_help_export},
    {"presets", presets, wb_cli_help_presets},
    {"info", info, wb_cli_help_info},
    {"testcard", testcard, wb_cli_help_testcard},
    {"weights", weights, wb_cli_help_weights},
};

static const Command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* wobble's own options, in place of a command: true when arg was one (and
 * what it asks for is printed). */
static bool own_option(const char *arg)
{
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help")) {
        wb_cli_help_main(stdout);
        return true;
    }
    if (!strcmp(arg, "--version") || !strcmp(arg, "-V")) {
        printf("wobble %s\n", WB_VERSION);
        return true;
    }
    return false;
}

/* Set when a reader closed our standard output (`wobble info --keys |
 * head`): the writes then fail with EPIPE instead of killing the process. */
static volatile sig_atomic_t g_pipe_closed;

static void on_sigpipe(int sig)
{
    (void)sig;
    g_pipe_closed = 1;
}

static int finish(int status)
{
    /* A full disk on stdout must never look like success; a reader that
     * stopped reading (head) took what it wanted: no message, the
     * command's own status. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (g_pipe_closed)
            return status;
        fprintf(stderr, "wobble: error: write error on standard output\n");
        return status ? status : WB_E_IO;
    }
    return status;
}

/* cmd: the command whose options could not be parsed (a usage error: the
 * help is the place to look), NULL for an error in what the command read
 * or did (a scene, an image, a disk), where the help would not help. */
static int fail(const WbError *err, const char *cmd)
{
    wb_error_print(err, "wobble", stderr);
    if (err->status == WB_E_INPUT && !err->file[0] && cmd)
        fprintf(stderr, "Try 'wobble %s --help' for more information.\n", cmd);
    return finish(err->status ? (int)err->status : WB_E_IO);
}

/* The exit code of a command that ended with st (and err). */
static int report(const Command *cmd, WbStatus st, const Outcome *out, const WbError *err)
{
    if (st == WB_E_INTERRUPTED) {
        fprintf(stderr, "wobble: interrupted; %s\n", err->msg[0] ? err->msg : "output finalized");
        return finish(WB_E_INTERRUPTED);
    }
    if (st && out->json)
        wb_cli_json_error(out->json_stderr ? stderr : stdout, err);
    if (st)
        return fail(err, out->usage ? cmd->name : NULL);
    if (out->help)
        cmd->help(stdout);
    return finish(0);
}

int main(int argc, char **argv)
{
    /* A reader that quits early (`wobble render -o - | head -c 10`) must give
     * a write error (exit 3), not kill the process silently; text on stdout
     * (listings, reports) just ends (see finish). */
    signal(SIGPIPE, on_sigpipe);
    if (argc < 2) {
        fprintf(stderr, "wobble: missing command\nTry 'wobble --help' for more information.\n");
        return WB_E_INPUT;
    }
    if (own_option(argv[1]))
        return finish(0);
    const Command *cmd = find_command(argv[1]);
    if (!cmd) {
        const char *names[sizeof commands / sizeof *commands + 1];
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
            names[i] = commands[i].name;
        names[sizeof commands / sizeof *commands] = NULL;
        const char *sug = wb_schema_suggest(argv[1], names);
        fprintf(stderr, "wobble: unknown command '%s'", argv[1]);
        if (sug)
            fprintf(stderr, " (did you mean '%s'?)", sug);
        fprintf(stderr, "\nTry 'wobble --help' for more information.\n");
        return WB_E_INPUT;
    }

    WbError err;
    wb_error_clear(&err);
    Outcome out = {0};
    WbStatus st = cmd->handler(argc - 1, argv + 1, &out, &err);
    return report(cmd, st, &out, &err);
}
