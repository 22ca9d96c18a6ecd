/* wobble — parse the command, run it, report, exit.  The only place that
 * prints errors and chooses the exit code (see WbStatus in core/error.h). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"

static int finish(int status)
{
    /* A full disk on stdout must never look like success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
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

int main(int argc, char **argv)
{
    WbError err;
    wb_error_clear(&err);
    /* A reader that quits early (`wobble render -o - | head -c 10`) must give
     * a write error (exit 3), not kill the process silently. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        fprintf(stderr, "wobble: missing command\nTry 'wobble --help' for more information.\n");
        return WB_E_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        wb_cli_help_main(stdout);
        return finish(0);
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("wobble %s\n", WB_VERSION);
        return finish(0);
    }
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    WbStatus st;
    bool usage = false; /* the options did not parse */
    if (!strcmp(cmd, "render")) {
        WbRenderOptions o;
        st = wb_cli_parse_render(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.want_help) {
            wb_cli_help_render(stdout);
            wb_render_options_free(&o);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_render(&o, &err);
        wb_render_options_free(&o);
    } else if (!strcmp(cmd, "check")) {
        WbCheckOptions o;
        st = wb_cli_parse_check(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.r.want_help) {
            wb_cli_help_check(stdout);
            wb_render_options_free(&o.r);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_check(&o, &err);
        wb_render_options_free(&o.r);
    } else if (!strcmp(cmd, "presets")) {
        WbPresetsOptions o;
        st = wb_cli_parse_presets(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.want_help) {
            wb_cli_help_presets(stdout);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_presets(&o, &err);
    } else if (!strcmp(cmd, "info")) {
        WbInfoOptions o;
        st = wb_cli_parse_info(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.want_help) {
            wb_cli_help_info(stdout);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_info(&o, &err);
    } else if (!strcmp(cmd, "testcard")) {
        WbTestcardOptions o;
        st = wb_cli_parse_testcard(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.want_help) {
            wb_cli_help_testcard(stdout);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_testcard(&o, &err);
    } else if (!strcmp(cmd, "weights")) {
        WbWeightsOptions o;
        st = wb_cli_parse_weights(sub_argc, sub_argv, &o, &err);
        usage = st != WB_OK;
        if (!st && o.want_help) {
            wb_cli_help_weights(stdout);
            return finish(0);
        }
        if (!st)
            st = wb_cmd_weights(&o, &err);
    } else {
        fprintf(stderr, "wobble: unknown command '%s'\nTry 'wobble --help' for more information.\n", cmd);
        return WB_E_INPUT;
    }
    if (st == WB_E_INTERRUPTED) {
        fprintf(stderr, "wobble: interrupted; %s\n", err.msg[0] ? err.msg : "output finalized");
        return finish(WB_E_INTERRUPTED);
    }
    if (st)
        return fail(&err, usage ? cmd : NULL);
    return finish(0);
}
