/* cli.c — option parsing for every command (getopt_long) and the help texts.
 *
 * The help texts here and man/wobble.1 document the same options; a test
 * (tests/cli/t_docs.sh) fails when an option appears in one and not the other.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/schema.h"

enum {
    OPT_FRAMES = CHAR_MAX + 1,
    OPT_FPS,
    OPT_DURATION,
    OPT_SIZE,
    OPT_SET,
    OPT_SEED,
    OPT_THREADS,
    OPT_AA,
    OPT_CRF,
    OPT_PRESET,
    OPT_CODEC,
    OPT_PIX_FMT,
    OPT_JSON,
    OPT_UNTIL_SETTLED,
    OPT_STATS,
    OPT_DRY_RUN,
    OPT_KEYS,
    OPT_MASK,
    OPT_TSV,
    OPT_GOLDEN,
    OPT_UPDATE,
    OPT_EVERY,
    OPT_TOLERANCE,
    OPT_MAX_SHARE,
    OPT_MIN_PSNR,
    OPT_FORMAT,
    OPT_FIT,
    OPT_RATE,
    OPT_INTEGRATOR,
    OPT_NO_TIMING,
    OPT_MAX_PIXELS,
    OPT_MAX_EVENTS,
    OPT_MAX_GIF_PIXELS,
    OPT_PLOT,
    OPT_STATE,
    OPT_RESUME,
    OPT_PROGRESS,
    OPT_SCALE,
    OPT_LOOP_COUNT,
    OPT_PROGRESS_FD,
};

WbStatus wb_parse_int(const char *opt, const char *s, long lo, long hi, long *out, WbError *err)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return wb_error_set(err, WB_E_INPUT, "%s: '%s' is not an integer", opt, s);
    if (v < lo || v > hi)
        return wb_error_set(err, WB_E_INPUT, "%s: %ld is out of range [%ld, %ld]", opt, v, lo, hi);
    *out = v;
    return WB_OK;
}

WbStatus wb_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
                         WbError *err)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return wb_error_set(err, WB_E_INPUT, "%s: '%s' is not a number", opt, s);
    if (v < lo || v > hi)
        return wb_error_set(err, WB_E_INPUT, "%s: %g is out of range [%g, %g]", opt, v, lo, hi);
    *out = v;
    return WB_OK;
}

/* "WIDTHxHEIGHT" with each side in [lo, hi] ("1280x720"). */
static WbStatus parse_size(const char *s, long lo_w, long lo_h, long hi, int *w, int *h, WbError *err)
{
    char *end = NULL;
    errno = 0;
    long pw = strtol(s, &end, 10);
    if (end == s || *end != 'x' || errno)
        return wb_error_set(err, WB_E_INPUT, "--size: '%s' is not WIDTHxHEIGHT (e.g. 1280x720)", s);
    const char *hs = end + 1;
    long ph = strtol(hs, &end, 10);
    if (end == hs || *end || errno)
        return wb_error_set(err, WB_E_INPUT, "--size: '%s' is not WIDTHxHEIGHT (e.g. 1280x720)", s);
    if (pw < lo_w || ph < lo_h || pw > hi || ph > hi)
        return wb_error_set(err, WB_E_INPUT, "--size: %ldx%ld is outside %ldx%ld .. %ldx%ld", pw, ph,
                            lo_w, lo_h, hi, hi);
    *w = (int)pw;
    *h = (int)ph;
    return WB_OK;
}

/* "A:B", "A:", ":B" → half-open range; -1 marks an open end. */
static WbStatus parse_frames(const char *s, int64_t *a, int64_t *b, WbError *err)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return wb_error_set(err, WB_E_INPUT, "--frames: '%s' is not a range A:B (half open, e.g. 0:30)", s);
    char left[32], right[32];
    size_t nl = (size_t)(colon - s), nr = strlen(colon + 1);
    if (nl >= sizeof left || nr >= sizeof right)
        return wb_error_set(err, WB_E_INPUT, "--frames: '%s' is too long", s);
    memcpy(left, s, nl);
    left[nl] = '\0';
    memcpy(right, colon + 1, nr + 1);
    long v;
    *a = 0;
    *b = -1;
    if (nl) {
        if (wb_parse_int("--frames", left, 0, LONG_MAX, &v, err))
            return WB_E_INPUT;
        *a = v;
    }
    if (nr) {
        if (wb_parse_int("--frames", right, 0, LONG_MAX, &v, err))
            return WB_E_INPUT;
        *b = v;
    }
    if (*b >= 0 && *b <= *a)
        return wb_error_set(err, WB_E_INPUT, "--frames: empty range %s (B must be greater than A)", s);
    return WB_OK;
}

/* Every override (--set and the options that stand for one) counts
 * against the one limit of WB_MAX_SETS. */
static WbStatus room_for_set(size_t n_sets, WbError *err)
{
    if (n_sets >= WB_MAX_SETS)
        return wb_error_set(err, WB_E_INPUT, "too many --set overrides (at most %d)", WB_MAX_SETS);
    return WB_OK;
}

/* An override built from option `option` (--fps 30 → "output.fps=30"); the
 * string is owned by o and freed by wb_render_options_free.  The scene
 * loader names the option, not the text, when the override cannot apply. */
static WbStatus add_set(WbRenderOptions *o, const char *option, const char *fmt_key,
                        const char *value, WbError *err)
{
    if (room_for_set(o->n_sets, err))
        return WB_E_INPUT;
    size_t n = strlen(fmt_key) + strlen(value) + 2;
    char *s = malloc(n);
    if (!s)
        return wb_error_set(err, WB_E_IO, "out of memory");
    snprintf(s, n, "%s=%s", fmt_key, value);
    o->owned_sets[o->n_owned++] = s;
    o->set_option[o->n_sets] = option;
    o->sets[o->n_sets++] = s;
    return WB_OK;
}

/* A user's --set KEY=VALUE, kept as given (argv outlives the options). */
static WbStatus take_set(const char *s, const char **sets, size_t *n_sets, WbError *err)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s)
        return wb_error_set(err, WB_E_INPUT, "--set: '%s' is not KEY=VALUE (e.g. photo.bounce=0.4)", s);
    if (room_for_set(*n_sets, err))
        return WB_E_INPUT;
    sets[(*n_sets)++] = s;
    return WB_OK;
}

/* --seed N: any 32-bit unsigned value. */
static WbStatus parse_seed(const char *s, uint32_t *seed, WbError *err)
{
    long v;
    if (wb_parse_int("--seed", s, 0, 4294967295L, &v, err))
        return WB_E_INPUT;
    *seed = (uint32_t)v;
    return WB_OK;
}

void wb_render_options_free(WbRenderOptions *o)
{
    for (size_t i = 0; i < o->n_owned; i++)
        free(o->owned_sets[i]);
    o->n_owned = 0;
}

/* The long option a word like "--fsp=30" names, without "--" and "=...",
 * into buf; false when the word is no long option. */
static bool long_name(const char *arg, char *buf, size_t n)
{
    if (strncmp(arg, "--", 2) || !arg[2])
        return false;
    size_t len = strcspn(arg + 2, "=");
    if (len >= n)
        len = n - 1;
    memcpy(buf, arg + 2, len);
    buf[len] = '\0';
    return true;
}

static WbStatus unknown_option(int argc, char **argv, const char *cmd,
                               const struct option *longopts, WbError *err)
{
    /* getopt_long reports through optopt/optind; rebuild a message ourselves
     * since opterr is off (library code never prints). */
    const char *arg = (optind - 1 < argc && optind > 0) ? argv[optind - 1] : "?";
    if (optopt && optopt < CHAR_MAX)
        return wb_error_set(err, WB_E_INPUT, "%s: invalid option or missing argument: '-%c'", cmd, optopt);
    char name[64];
    if (long_name(arg, name, sizeof name)) {
        const char *names[64];
        size_t n = 0;
        for (const struct option *lo = longopts; lo->name && n + 1 < 64; lo++) {
            if (!strcmp(lo->name, name) && lo->has_arg == required_argument)
                return wb_error_set(err, WB_E_INPUT, "%s: option '--%s' needs a value", cmd, name);
            names[n++] = lo->name;
        }
        names[n] = NULL;
        const char *sug = wb_schema_suggest(name, names);
        if (sug)
            return wb_error_set(err, WB_E_INPUT, "%s: unrecognized option '%s' (did you mean "
                                "'--%s'?)", cmd, arg, sug);
    }
    return wb_error_set(err, WB_E_INPUT, "%s: unrecognized option or missing argument: '%s'", cmd, arg);
}

/* One command's handling of one option c (optarg holds its argument).  Sets
 * *known to false for an option the command does not take. */
typedef WbStatus (*OptionFn)(void *o, int c, bool *known, WbError *err);

/* The getopt_long loop every command shares: -h/--help stops parsing with
 * *want_help set (the command prints its help, whatever else was given),
 * the first bad option stops it with an error.  Leaves optind at the first
 * operand. */
static WbStatus parse_options(int argc, char **argv, const char *cmd, const char *shortopts,
                              const struct option *longopts, OptionFn fn, void *o,
                              bool *want_help, WbError *err)
{
    optind = 1;
    opterr = 0;  /* library code never prints: unknown_option words the error */
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'h') {
            *want_help = true;
            return WB_OK;
        }
        bool known = true;
        WbStatus st = fn(o, c, &known, err);
        if (!st && !known)
            st = unknown_option(argc, argv, cmd, longopts, err);
        if (st)
            return st;
    }
    return WB_OK;
}

/* After the last operand a command takes: nothing may follow. */
static WbStatus no_more_arguments(int argc, char **argv, const char *cmd, WbError *err)
{
    if (optind < argc)
        return wb_error_set(err, WB_E_INPUT, "%s: unexpected argument '%s'", cmd, argv[optind]);
    return WB_OK;
}

/* The one SCENE operand of render, check and info. */
static WbStatus take_scene_argument(int argc, char **argv, const char *cmd, const char **scene,
                                    WbError *err)
{
    if (optind >= argc)
        return wb_error_set(err, WB_E_INPUT, "%s: missing SCENE", cmd);
    *scene = argv[optind++];
    return no_more_arguments(argc, argv, cmd, err);
}

/* Options render and check share: what is simulated and drawn. */
#define SCENE_LONGOPTS                                          \
    {"frames", required_argument, NULL, OPT_FRAMES},            \
    {"fps", required_argument, NULL, OPT_FPS},                  \
    {"duration", required_argument, NULL, OPT_DURATION},        \
    {"size", required_argument, NULL, OPT_SIZE},                \
    {"scale", required_argument, NULL, OPT_SCALE},              \
    {"set", required_argument, NULL, OPT_SET},                  \
    {"seed", required_argument, NULL, OPT_SEED},                \
    {"threads", required_argument, NULL, OPT_THREADS},          \
    {"aa", required_argument, NULL, OPT_AA},                    \
    {"until-settled", no_argument, NULL, OPT_UNTIL_SETTLED},    \
    {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS},    \
    {"max-events", required_argument, NULL, OPT_MAX_EVENTS},    \
    {"json", no_argument, NULL, OPT_JSON},                      \
    {"quiet", no_argument, NULL, 'q'},                          \
    {"help", no_argument, NULL, 'h'}

static void render_options_init(WbRenderOptions *o)
{
    memset(o, 0, sizeof *o);
    o->frame_a = 0;
    o->frame_b = -1;
    o->aa = 4;
    o->crf = -1;
    o->progress_fd = 2;
}

/* Handle one of SCENE_LONGOPTS but --help (parse_options' own); *handled is
 * false for any other option. */
static WbStatus scene_option(int c, WbRenderOptions *o, bool *handled, WbError *err)
{
    WbStatus st = WB_OK;
    long v;
    double d;
    uint32_t seed;
    *handled = true;
    switch (c) {
    case 'q': o->quiet = true; break;
    case OPT_JSON: o->json = true; break;
    case OPT_FRAMES: st = parse_frames(optarg, &o->frame_a, &o->frame_b, err); break;
    case OPT_MAX_PIXELS:
        st = wb_parse_int("--max-pixels", optarg, 1, LONG_MAX, &v, err);
        o->max_pixels = v;
        break;
    case OPT_MAX_EVENTS:
        st = wb_parse_int("--max-events", optarg, 1, LONG_MAX, &v, err);
        o->max_events = v;
        break;
    /* Applied as the scene key with the number as parsed here (%.17g gives
     * the very double back), so a form strtod takes and YAML does not
     * (0x10) is not then refused as if it came from a --set. */
    case OPT_FPS:
        st = wb_parse_double("--fps", optarg, 1e-3, 1000, &d, err);
        if (!st) {
            char num[40];
            snprintf(num, sizeof num, "%.17g", d);
            st = add_set(o, "--fps", "output.fps", num, err);
        }
        break;
    case OPT_DURATION:
        st = wb_parse_double("--duration", optarg, 1e-6, 3600, &d, err);
        if (!st) {
            char num[40];
            snprintf(num, sizeof num, "%.17g", d);
            st = add_set(o, "--duration", "output.duration", num, err);
        }
        break;
    case OPT_SCALE:
        st = wb_parse_double("--scale", optarg, 1e-3, 8, &d, err);
        if (!st) {
            char num[40];
            snprintf(num, sizeof num, "%.17g", d);
            st = add_set(o, "--scale", "output.scale", num, err);
        }
        break;
    /* A 0 side follows the other and the content's aspect (480x0). */
    case OPT_SIZE: {
        int w, h;
        char num[16];
        st = parse_size(optarg, 0, 0, 16384, &w, &h, err);
        if (!st) {
            snprintf(num, sizeof num, "%d", w);
            st = add_set(o, "--size", "output.width", num, err);
        }
        if (!st) {
            snprintf(num, sizeof num, "%d", h);
            st = add_set(o, "--size", "output.height", num, err);
        }
        break;
    }
    case OPT_SET: st = take_set(optarg, o->sets, &o->n_sets, err); break;
    case OPT_SEED:
        /* checked here, applied as the scene key (the scene validates it again) */
        st = parse_seed(optarg, &seed, err);
        if (!st) st = add_set(o, "--seed", "seed", optarg, err);
        break;
    case OPT_UNTIL_SETTLED:
        st = add_set(o, "--until-settled", "output.until_settled", "true", err);
        break;
    case OPT_THREADS:
        st = wb_parse_int("--threads", optarg, 0, 256, &v, err);
        o->threads = (int)v;
        break;
    case OPT_AA:
        st = wb_parse_int("--aa", optarg, 1, 16, &v, err);
        if (!st && v != 1 && v != 4 && v != 8 && v != 16)
            st = wb_error_set(err, WB_E_INPUT, "--aa: %ld samples per pixel is not supported (1, 4, 8 or 16)", v);
        o->aa = (int)v;
        break;
    default: *handled = false; break;
    }
    return st;
}

static WbStatus render_option(void *opts, int c, bool *known, WbError *err)
{
    WbRenderOptions *o = opts;
    bool handled;
    WbStatus st = scene_option(c, o, &handled, err);
    if (st || handled)
        return st;
    long v;
    switch (c) {
    case 'o': o->output = optarg; break;
    case OPT_CRF:
        st = wb_parse_int("--crf", optarg, 0, 63, &v, err);
        o->crf = (int)v;
        break;
    case OPT_PRESET: o->preset = optarg; break;
    case OPT_CODEC: o->codec = optarg; break;
    case OPT_PIX_FMT: o->pix_fmt = optarg; break;
    case OPT_STATS: o->stats = optarg; break;
    case OPT_DRY_RUN: o->dry_run = true; break;
    case OPT_STATE:
        if (!*optarg)
            st = wb_error_set(err, WB_E_INPUT, "--state: the path is empty");
        o->state = optarg;
        break;
    case OPT_RESUME: o->resume = true; break;
    case OPT_MAX_GIF_PIXELS:
        st = wb_parse_int("--max-gif-pixels", optarg, 1, LONG_MAX, &v, err);
        o->max_gif_pixels = v;
        break;
    case OPT_PROGRESS:
        if (!strcmp(optarg, "auto"))
            o->progress = WB_PROGRESS_AUTO;
        else if (!strcmp(optarg, "none"))
            o->progress = WB_PROGRESS_NONE;
        else if (!strcmp(optarg, "json"))
            o->progress = WB_PROGRESS_JSON;
        else
            st = wb_error_set(err, WB_E_INPUT, "--progress: '%s' is not auto, none or json", optarg);
        break;
    case OPT_LOOP_COUNT:
        st = wb_parse_int("--loop-count", optarg, 0, 65535, &v, err);
        if (!st)
            st = add_set(o, "--loop-count", "output.loop_count", optarg, err);
        break;
    case OPT_PROGRESS_FD:
        st = wb_parse_int("--progress-fd", optarg, 1, 1023, &v, err);
        o->progress_fd = (int)v;
        if (!st && o->progress == WB_PROGRESS_AUTO)
            o->progress = WB_PROGRESS_JSON;
        break;
    default: *known = false; break;
    }
    return st;
}

WbStatus wb_cli_parse_render(int argc, char **argv, WbRenderOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        SCENE_LONGOPTS,
        {"output", required_argument, NULL, 'o'},
        {"crf", required_argument, NULL, OPT_CRF},
        {"preset", required_argument, NULL, OPT_PRESET},
        {"codec", required_argument, NULL, OPT_CODEC},
        {"pix-fmt", required_argument, NULL, OPT_PIX_FMT},
        {"stats", required_argument, NULL, OPT_STATS},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"state", required_argument, NULL, OPT_STATE},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"max-gif-pixels", required_argument, NULL, OPT_MAX_GIF_PIXELS},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"loop-count", required_argument, NULL, OPT_LOOP_COUNT},
        {"progress-fd", required_argument, NULL, OPT_PROGRESS_FD},
        {NULL, 0, NULL, 0},
    };
    render_options_init(o);
    WbStatus st = parse_options(argc, argv, "render", "o:qh", longopts, render_option, o,
                                &o->want_help, err);
    if (st || o->want_help)
        return st;
    return take_scene_argument(argc, argv, "render", &o->scene, err);
}

static WbStatus bake_option(void *opts, int c, bool *known, WbError *err)
{
    WbBakeOptions *o = opts;
    bool handled;
    WbStatus st = scene_option(c, &o->r, &handled, err);
    if (st || handled)
        return st;
    long v;
    switch (c) {
    case 'o': o->r.output = optarg; break;
    case OPT_EVERY:
        st = wb_parse_int("--every", optarg, 1, 1000000, &v, err);
        o->every = v;
        break;
    default: *known = false; break;
    }
    return st;
}

WbStatus wb_cli_parse_bake(int argc, char **argv, WbBakeOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        SCENE_LONGOPTS,
        {"output", required_argument, NULL, 'o'},
        {"every", required_argument, NULL, OPT_EVERY},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    render_options_init(&o->r);
    WbStatus st = parse_options(argc, argv, "bake", "o:qh", longopts, bake_option, o,
                                &o->r.want_help, err);
    if (st || o->r.want_help)
        return st;
    st = take_scene_argument(argc, argv, "bake", &o->r.scene, err);
    if (!st && !o->r.output)
        st = wb_error_set(err, WB_E_INPUT, "bake: missing -o STATE (the state file to write)");
    if (!st && (o->r.frame_a != 0 || o->r.frame_b >= 0))
        st = wb_error_set(err, WB_E_INPUT, "bake: --frames does not apply (a bake covers the "
                          "whole scene)");
    return st;
}

static WbStatus export_option(void *opts, int c, bool *known, WbError *err)
{
    WbExportOptions *o = opts;
    bool handled;
    WbStatus st = scene_option(c, &o->r, &handled, err);
    if (st || handled)
        return st;
    switch (c) {
    case 'o': o->r.output = optarg; break;
    case OPT_STATE:
        if (!*optarg)
            st = wb_error_set(err, WB_E_INPUT, "--state: the path is empty");
        o->r.state = optarg;
        break;
    default: *known = false; break;
    }
    return st;
}

WbStatus wb_cli_parse_export(int argc, char **argv, WbExportOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        SCENE_LONGOPTS,
        {"output", required_argument, NULL, 'o'},
        {"state", required_argument, NULL, OPT_STATE},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    render_options_init(&o->r);
    WbStatus st = parse_options(argc, argv, "export", "o:qh", longopts, export_option, o,
                                &o->r.want_help, err);
    if (st || o->r.want_help)
        return st;
    st = take_scene_argument(argc, argv, "export", &o->r.scene, err);
    if (!st && (!o->r.output || !*o->r.output))
        st = wb_error_set(err, WB_E_INPUT, "export: missing -o BASE (the files are BASE.obj, "
                          "BASE.pc2, BASE.csv)");
    return st;
}

static WbStatus check_option(void *opts, int c, bool *known, WbError *err)
{
    WbCheckOptions *o = opts;
    bool handled;
    WbStatus st = scene_option(c, &o->r, &handled, err);
    if (st || handled)
        return st;
    long v;
    switch (c) {
    case OPT_GOLDEN:
        if (!*optarg)
            st = wb_error_set(err, WB_E_INPUT, "--golden: empty folder name");
        o->golden = optarg;
        break;
    case OPT_UPDATE: o->update = true; break;
    case OPT_EVERY:
        st = wb_parse_int("--every", optarg, 1, 1000000, &v, err);
        o->every = (int)v;
        break;
    case OPT_TOLERANCE:
        st = wb_parse_int("--tolerance", optarg, 0, 255, &v, err);
        o->tolerance = (int)v;
        break;
    case OPT_MAX_SHARE: st = wb_parse_double("--max-share", optarg, 0, 1, &o->max_share, err); break;
    case OPT_MIN_PSNR: st = wb_parse_double("--min-psnr", optarg, 0, 200, &o->min_psnr, err); break;
    default: *known = false; break;
    }
    return st;
}

WbStatus wb_cli_parse_check(int argc, char **argv, WbCheckOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        SCENE_LONGOPTS,
        {"golden", required_argument, NULL, OPT_GOLDEN},
        {"update", no_argument, NULL, OPT_UPDATE},
        {"every", required_argument, NULL, OPT_EVERY},
        {"tolerance", required_argument, NULL, OPT_TOLERANCE},
        {"max-share", required_argument, NULL, OPT_MAX_SHARE},
        {"min-psnr", required_argument, NULL, OPT_MIN_PSNR},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    render_options_init(&o->r);
    o->every = 1;
    o->tolerance = 1;
    WbStatus st = parse_options(argc, argv, "check", "qh", longopts, check_option, o,
                                &o->r.want_help, err);
    if (st || o->r.want_help)
        return st;
    st = take_scene_argument(argc, argv, "check", &o->r.scene, err);
    if (!st && !o->golden)
        st = wb_error_set(err, WB_E_INPUT, "check: missing --golden DIR");
    return st;
}

/* "period=0.4" and "settle=1.38" arguments of --fit (one or both per word). */
static WbStatus parse_fit_word(const char *w, WbPresetsOptions *o, unsigned *seen, WbError *err)
{
    const char *eq = strchr(w, '=');
    if (!eq)
        return wb_error_set(err, WB_E_INPUT, "--fit: '%s' is not period=SECONDS or settle=SECONDS", w);
    size_t n = (size_t)(eq - w);
    if (n == 6 && !strncmp(w, "period", 6)) {
        *seen |= 1;
        return wb_parse_double("--fit period", eq + 1, 0.01, 60, &o->fit_period, err);
    }
    if (n == 6 && !strncmp(w, "settle", 6)) {
        *seen |= 2;
        return wb_parse_double("--fit settle", eq + 1, 0.01, 600, &o->fit_settle, err);
    }
    return wb_error_set(err, WB_E_INPUT, "--fit: unknown quantity '%.*s' (period, settle)", (int)n, w);
}

/* presets' options, with what --fit has seen so far (1 period, 2 settle)
 * and the words after it (its second word is an operand to getopt). */
typedef struct PresetsParse {
    WbPresetsOptions *o;
    unsigned seen;
    int argc;
    char **argv;
} PresetsParse;

static WbStatus presets_option(void *opts, int c, bool *known, WbError *err)
{
    PresetsParse *pp = opts;
    WbPresetsOptions *o = pp->o;
    WbStatus st = WB_OK;
    switch (c) {
    case OPT_FORMAT: o->format = optarg; break;
    case OPT_FIT:
        o->fit = true;
        st = parse_fit_word(optarg, o, &pp->seen, err);
        /* "--fit period=P settle=S": the second word follows as an operand. */
        while (!st && optind < pp->argc && strchr(pp->argv[optind], '=') &&
               pp->argv[optind][0] != '-')
            st = parse_fit_word(pp->argv[optind++], o, &pp->seen, err);
        break;
    case OPT_RATE: st = wb_parse_double("--rate", optarg, 10, 100000, &o->rate, err); break;
    case OPT_NO_TIMING: o->no_timing = true; break;
    case OPT_INTEGRATOR:
        if (!strcmp(optarg, "euler"))
            o->integrator = 0;
        else if (!strcmp(optarg, "exact"))
            o->integrator = 1;
        else
            st = wb_error_set(err, WB_E_INPUT, "--integrator: '%s' is not euler or exact", optarg);
        break;
    case OPT_SEED: st = parse_seed(optarg, &o->seed, err); break;
    case OPT_PLOT:
        if (!*optarg)
            st = wb_error_set(err, WB_E_INPUT, "--plot: empty file name");
        o->plot = optarg;
        break;
    /* --size WxH of the --plot chart: a chart needs room for its text. */
    case OPT_SIZE: st = parse_size(optarg, 480, 300, 8192, &o->plot_w, &o->plot_h, err); break;
    default: *known = false; break;
    }
    return st;
}

WbStatus wb_cli_parse_presets(int argc, char **argv, WbPresetsOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"fit", required_argument, NULL, OPT_FIT},
        {"rate", required_argument, NULL, OPT_RATE},
        {"integrator", required_argument, NULL, OPT_INTEGRATOR},
        {"no-timing", no_argument, NULL, OPT_NO_TIMING},
        {"seed", required_argument, NULL, OPT_SEED},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"size", required_argument, NULL, OPT_SIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->kind = "photo";
    o->plot_w = 960;
    o->plot_h = 600;
    o->format = "md";
    o->rate = 240;
    PresetsParse pp = {o, 0, argc, argv};
    WbStatus st = parse_options(argc, argv, "presets", "h", longopts, presets_option, &pp,
                                &o->want_help, err);
    if (st || o->want_help)
        return st;
    if (optind < argc)
        o->kind = argv[optind++];
    if (no_more_arguments(argc, argv, "presets", err))
        return WB_E_INPUT;
    if (o->fit && pp.seen != 3)
        return wb_error_set(err, WB_E_INPUT, "--fit needs both period=SECONDS and settle=SECONDS");
    if (o->fit && o->plot)
        return wb_error_set(err, WB_E_INPUT, "--plot charts a preset table; it does not apply to --fit");
    return WB_OK;
}

static WbStatus info_option(void *opts, int c, bool *known, WbError *err)
{
    WbInfoOptions *o = opts;
    switch (c) {
    case OPT_KEYS: o->keys = true; return WB_OK;
    case OPT_TSV: o->tsv = true; return WB_OK;
    case OPT_SET: return take_set(optarg, o->sets, &o->n_sets, err);
    case OPT_MAX_PIXELS: {
        long v;
        WbStatus st = wb_parse_int("--max-pixels", optarg, 1, LONG_MAX, &v, err);
        o->max_pixels = v;
        return st;
    }
    case OPT_MAX_EVENTS: {
        long v;
        WbStatus st = wb_parse_int("--max-events", optarg, 1, LONG_MAX, &v, err);
        o->max_events = v;
        return st;
    }
    }
    *known = false;
    return WB_OK;
}

WbStatus wb_cli_parse_info(int argc, char **argv, WbInfoOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        {"set", required_argument, NULL, OPT_SET},
        {"keys", no_argument, NULL, OPT_KEYS},
        {"tsv", no_argument, NULL, OPT_TSV},
        {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS},
        {"max-events", required_argument, NULL, OPT_MAX_EVENTS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    WbStatus st = parse_options(argc, argv, "info", "h", longopts, info_option, o, &o->want_help,
                                err);
    if (st || o->want_help)
        return st;
    if (o->keys) {
        if (optind < argc)
            return wb_error_set(err, WB_E_INPUT, "info --keys takes no SCENE");
        return WB_OK;
    }
    /* The scene is printed as YAML only: a --tsv here would be ignored. */
    if (o->tsv)
        return wb_error_set(err, WB_E_INPUT, "info: --tsv goes with --keys (a scene prints as YAML)");
    return take_scene_argument(argc, argv, "info", &o->scene, err);
}

static WbStatus testcard_option(void *opts, int c, bool *known, WbError *err)
{
    WbTestcardOptions *o = opts;
    switch (c) {
    case 'o':
        o->output = optarg;
        return *optarg ? WB_OK : wb_error_set(err, WB_E_INPUT, "-o: empty file name");
    case OPT_MASK: o->mask = true; return WB_OK;
    case OPT_SIZE: return parse_size(optarg, 16, 16, 8192, &o->width, &o->height, err);
    }
    *known = false;
    return WB_OK;
}

WbStatus wb_cli_parse_testcard(int argc, char **argv, WbTestcardOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"size", required_argument, NULL, OPT_SIZE},
        {"mask", no_argument, NULL, OPT_MASK},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->width = 960;
    o->height = 720;
    WbStatus st = parse_options(argc, argv, "testcard", "o:h", longopts, testcard_option, o,
                                &o->want_help, err);
    if (st || o->want_help)
        return st;
    if (no_more_arguments(argc, argv, "testcard", err))
        return WB_E_INPUT;
    if (!o->output)
        return wb_error_set(err, WB_E_INPUT, "testcard: missing -o FILE.png");
    return WB_OK;
}

static WbStatus weights_option(void *opts, int c, bool *known, WbError *err)
{
    WbWeightsOptions *o = opts;
    switch (c) {
    case 'o':
        o->output = optarg;
        return *optarg ? WB_OK : wb_error_set(err, WB_E_INPUT, "-o: empty file name");
    case OPT_SEED: return parse_seed(optarg, &o->seed, err);
    case OPT_SIZE: return parse_size(optarg, 1, 1, 16384, &o->width, &o->height, err);
    }
    *known = false;
    return WB_OK;
}

WbStatus wb_cli_parse_weights(int argc, char **argv, WbWeightsOptions *o, WbError *err)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, OPT_SEED},
        {"size", required_argument, NULL, OPT_SIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->width = 512;
    o->height = 256;
    WbStatus st = parse_options(argc, argv, "weights", "o:h", longopts, weights_option, o,
                                &o->want_help, err);
    if (st || o->want_help)
        return st;
    if (optind >= argc)
        return wb_error_set(err, WB_E_INPUT, "weights: missing action (export)");
    if (strcmp(argv[optind], "export"))
        return wb_error_set(err, WB_E_INPUT, "weights: unknown action '%s' (expected export)",
                            argv[optind]);
    optind++;
    if (optind >= argc)
        return wb_error_set(err, WB_E_INPUT, "weights export: missing SHAPE (orb, capsule, "
                            "torus, dancer, walker, disc, ring, capsule-2d)");
    o->shape = argv[optind++];
    return no_more_arguments(argc, argv, "weights", err);
}

void wb_cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void wb_cli_json_error(FILE *f, const WbError *err)
{
    fprintf(f, "{\"error\": {\"code\": %d, \"message\": ", err->status ? (int)err->status : WB_E_IO);
    wb_cli_json_string(f, err->msg);
    if (err->file[0]) {
        fputs(", \"file\": ", f);
        wb_cli_json_string(f, err->file);
        if (err->line > 0)
            fprintf(f, ", \"line\": %d, \"col\": %d", err->line, err->col);
    }
    fputs("}}\n", f);
}

void wb_cli_help_main(FILE *f)
{
    fputs("Usage: wobble COMMAND [OPTIONS]\n"
          "Simulate and render wobble animations (photo springs, ropes, jiggle bones,\n"
          "cloth) from a scene file, headless, to video, GIF, WebP or PNG frames.\n"
          "\n"
          "Commands:\n"
          "  render SCENE [-o OUT]   render an animation\n"
          "  check SCENE --golden DIR  compare rendered frames with golden PNGs\n"
          "  bake SCENE -o STATE     simulate without drawing; keep the state every K frames\n"
          "  export SCENE -o BASE    baked motion for other tools: OBJ + PC2 meshes, CSV tracks\n"
          "  presets [KIND]          the numbers behind each named preset, computed by the engine\n"
          "  info SCENE              validate a scene and print it with every default filled in\n"
          "  info --keys             list every scene key with its type, default and meaning\n"
          "  testcard -o FILE.png    write the built-in test picture (or its object mask)\n"
          "  weights export SHAPE    write a jiggle shape's preset weight map as a PNG\n"
          "\n"
          "Options:\n"
          "  -h, --help              show this help, or a command's help: wobble CMD --help\n"
          "  -V, --version           print the version\n"
          "\n"
          "Exit status: 0 ok, 1 check found differences, 2 usage or invalid input,\n"
          "3 I/O or encoder failure, 4 the simulation diverged, 130 interrupted.\n"
          "Full documentation: man wobble, or from the source tree: man ./man/wobble.1\n", f);
}

void wb_cli_help_render(FILE *f)
{
    fputs("Usage: wobble render SCENE [-o OUT] [OPTIONS]\n"
          "Simulate SCENE at its fixed timestep and encode every frame.\n"
          "The output kind follows OUT: .mp4 (H.264), .webm (VP9, alpha), .mov (ProRes 4444,\n"
          "alpha), .mkv (FFV1 lossless, alpha), .gif, .webp and .apng (animated, alpha),\n"
          "NAME_%04d.png (PNG sequence, alpha), NAME.png (one frame, e.g. --frames 12:13),\n"
          "or - (YUV4MPEG2 on stdout, for '| ffmpeg -i - ...').  A transparent scene\n"
          "written without alpha (.mp4, -) gets a warning.\n"
          "A photo scene's photo.image may be an animated GIF/WebP/APNG or a video (plays\n"
          "and loops under the mesh), or - to read the picture from standard input.\n"
          "\n"
          "  -o, --output OUT        output path (default: SCENE's name with .mp4, here)\n"
          "      --frames A:B        render frames A..B-1 only (A: and :B allowed); the\n"
          "                          simulation fast-forwards to A without rendering\n"
          "      --fps N             frames per second (same as --set output.fps=N)\n"
          "      --duration S        seconds to render (same as --set output.duration=S)\n"
          "      --size WxH          output size in pixels (output.width, output.height); a 0\n"
          "                          side follows the content's aspect (480x0), rounded to even\n"
          "      --scale F           scale the scene's size by F (output.scale), e.g. 0.5\n"
          "      --set KEY=VALUE     override a scene key, validated like the file; repeatable\n"
          "      --seed N            random seed (same as --set seed=N)\n"
          "      --until-settled     stop at the first frame where nothing moves\n"
          "      --threads N         render threads (default: one per CPU; output is identical)\n"
          "      --aa N              antialiasing samples per pixel: 1, 4, 8 or 16 (default 4)\n"
          "      --codec NAME        encoder (default by extension: libx264, libvpx-vp9,\n"
          "                          prores_ks, ffv1, gif, libwebp_anim)\n"
          "      --crf N             constant rate factor / quality (codec default if absent)\n"
          "      --preset NAME       encoder speed preset (x264: ultrafast..veryslow)\n"
          "      --pix-fmt NAME      encoder pixel format (default by extension)\n"
          "      --loop-count N      GIF, WebP, APNG: times the animation plays (0 = forever,\n"
          "                          the default; output.loop_count)\n"
          "      --stats FILE.csv    per-frame CSV: frame,time,moving,max_displacement,\n"
          "                          max_speed,hash,limited,folded (- for stdout)\n"
          "      --json              print a JSON summary on stdout when done, or a JSON\n"
          "                          error object {\"error\": {code, message, file, line,\n"
          "                          col}} on failure\n"
          "      --progress MODE     auto (a line on a terminal), none, or json: one JSON\n"
          "                          line per frame plus start and end, on stderr\n"
          "      --progress-fd N     write the JSON progress lines to file descriptor N\n"
          "      --dry-run           check the scene, its inputs, the output path and codec;\n"
          "                          simulate and write nothing\n"
          "      --state STATE       start from STATE's last snapshot at or before A (made by\n"
          "                          wobble bake with the same scene and options)\n"
          "      --resume            PNG sequences: keep a journal of finished frames next to\n"
          "                          them and, when one is there, check those frames and go\n"
          "                          on after the last good one\n"
          "      --max-pixels N      largest picture read (photo, mask, weight map), from\n"
          "                          its header before decoding (default 25000000)\n"
          "      --max-events N      most timeline events a scene may hold (default 100000)\n"
          "      --max-gif-pixels N  most frames x width x height a GIF holds until its\n"
          "                          palette is made (default 160000000)\n"
          "  -q, --quiet             no progress line (it is shown only on a terminal)\n"
          "  -h, --help              show this help\n", f);
}

void wb_cli_help_check(FILE *f)
{
    fputs("Usage: wobble check SCENE --golden DIR [OPTIONS]\n"
          "Render SCENE's frames (no encoding) and compare each with DIR/NNNN.png.\n"
          "A failing frame writes DIR/NNNN_actual.png and DIR/NNNN_diff.png and a line\n"
          "on stderr; the exit status is 1 when any frame fails or has no golden.\n"
          "\n"
          "      --golden DIR        folder of golden frames NNNN.png (frame number, 4 digits)\n"
          "      --update            write missing goldens and refresh changed ones; exit 0\n"
          "      --frames A:B        check frames A..B-1 only\n"
          "      --every N           check every Nth frame of the range (default 1)\n"
          "      --tolerance N       a pixel differs when a channel differs by more than N\n"
          "                          levels (0..255, default 1)\n"
          "      --max-share F       a frame fails when more than this fraction of its pixels\n"
          "                          differ (0..1, default 0)\n"
          "      --min-psnr DB       a frame also fails below this PSNR (default 0: off)\n"
          "      --json              print a JSON report on stdout (an error object on failure)\n"
          "      --set KEY=VALUE     override a scene key; repeatable\n"
          "      --fps N, --duration S, --size WxH, --scale F, --seed N, --until-settled, --aa N,\n"
          "      --max-pixels N, --max-events N,\n"
          "      --threads N         as for render\n"
          "  -q, --quiet             no per-frame lines for passing frames\n"
          "  -h, --help              show this help\n", f);
}

void wb_cli_help_presets(FILE *f)
{
    fputs("Usage: wobble presets [photo|jiggle|rope|fabric] [--format md|csv|json]\n"
          "                      [--plot FILE.png [--size WxH]]\n"
          "       wobble presets photo --fit period=SECONDS settle=SECONDS\n"
          "Regenerate a preset table by running the engine: for photo, each preset's fitted\n"
          "spring (frequency, k, bounce) and what it measures to (period, oscillations,\n"
          "settle time; the rules are in wobble(1)); for jiggle, each bone's seeded\n"
          "character and the spring it yields; for rope, the convergence table (nodes x\n"
          "relaxation passes -> elongation, cost) of the Jakobsen and chain solvers; for\n"
          "fabric, each fabric preset's parameters and its drape coefficient, stretch and\n"
          "settle time from a virtual drape test run by the cloth solver.\n"
          "\n"
          "      --format FMT        md (default), csv or json\n"
          "      --fit period=P settle=S\n"
          "                          find the spring with that period and settle time, and\n"
          "                          the elasticity and bounce that reach it\n"
          "      --rate N            measurement steps per second (default 240)\n"
          "      --integrator NAME   euler (default) or exact\n"
          "      --seed N            jiggle: the seed of the bones' character (default 0)\n"
          "      --no-timing         rope: print 0 for the microseconds column, so the table\n"
          "                          is the same on every machine\n"
          "      --plot FILE.png     also draw the curves behind the table as a chart\n"
          "      --size WxH          size of the --plot chart in pixels (default 960x600)\n"
          "  -h, --help              show this help\n", f);
}

void wb_cli_help_info(FILE *f)
{
    fputs("Usage: wobble info SCENE [--set KEY=VALUE]... [--max-pixels N] [--max-events N]\n"
          "       wobble info --keys [--tsv]\n"
          "Validate SCENE (reading the files it names) and print the effective scene as YAML, every default filled in.\n"
          "\n"
          "      --set KEY=VALUE     override a scene key first; repeatable\n"
          "      --keys              list every scene key: path, type, default, meaning\n"
          "      --tsv               with --keys: tab-separated fields, for scripts\n"
          "      --max-pixels N      largest picture read, as for render (default 25000000)\n"
          "      --max-events N      most timeline events, as for render (default 100000)\n"
          "  -h, --help              show this help\n", f);
}

void wb_cli_help_testcard(FILE *f)
{
    fputs("Usage: wobble testcard -o FILE.png [--size WxH] [--mask]\n"
          "Write the built-in test picture: colour bars, a fine grid, rings, a checker\n"
          "and a glossy ball, detailed enough to see every wobble.\n"
          "\n"
          "  -o, --output FILE.png   where to write it\n"
          "      --size WxH          picture size (default 960x720)\n"
          "      --mask              write the ball's mask (white object on black) instead\n"
          "  -h, --help              show this help\n", f);
}

void wb_cli_help_weights(FILE *f)
{
    fputs("Usage: wobble weights export SHAPE [--seed N] [-o FILE.png] [--size WxH]\n"
          "Write the preset weight map of a jiggle shape: an RGBA PNG whose R, G and B\n"
          "are the weights of bones 0, 1 and 2 (the portable asset, with the seed).\n"
          "SHAPE: orb, capsule, torus, dancer, walker (3D) or disc, ring, capsule-2d (2D).\n"
          "Use it with --set jiggle.weights=FILE.png; a name containing seed-N reseeds.\n"
          "\n"
          "  -o, --output FILE.png   where to write (default jiggle-weights-seed-N.png)\n"
          "      --seed N            the seed named in the default file name (default 0)\n"
          "      --size WxH          map size in texels (default 512x256)\n"
          "  -h, --help              show this help\n", f);
}
