/* cli.h — the command line: parsing into option structs and the commands.
 *
 * Parsing never prints: a usage mistake returns WB_E_INPUT with a message and
 * main() prints it followed by "Try 'wobble CMD --help'".  `--help` sets
 * want_help and the command prints its help to stdout.
 */
#ifndef WB_CLI_H
#define WB_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

#define WB_MAX_SETS 256

/* --progress: the terminal line (on a TTY only), none, or NDJSON events. */
typedef enum WbProgressMode { WB_PROGRESS_AUTO, WB_PROGRESS_NONE, WB_PROGRESS_JSON } WbProgressMode;

typedef struct WbRenderOptions {
    const char *scene;
    const char *output;        /* NULL = <scene basename>.mp4 in the current folder */
    int64_t frame_a, frame_b;  /* --frames A:B, half open; -1 = not given */
    const char *sets[WB_MAX_SETS]; /* "key.path=value", applied in order */
    size_t n_sets;
    const char *set_option[WB_MAX_SETS]; /* the option that built sets[i] (--fps,
                                            --size, ...), NULL for a --set */
    char *owned_sets[WB_MAX_SETS]; /* strings built from --fps/--size/... */
    size_t n_owned;
    int threads;               /* 0 = one per online CPU */
    int aa;                    /* samples per pixel */
    const char *codec, *preset, *pix_fmt;
    int crf;                   /* -1 = codec default */
    int64_t max_pixels;        /* --max-pixels: largest picture read; 0 = WB_MAX_PIXELS */
    int64_t max_events;        /* --max-events: most timeline events; 0 = WB_MAX_EVENTS */
    int64_t max_gif_pixels;    /* --max-gif-pixels: frames x width x height a GIF holds;
                                  0 = WB_MAX_GIF_PIXELS */
    const char *stats;         /* per-frame CSV path or NULL */
    const char *state;         /* --state FILE: start from its snapshot, or NULL */
    bool resume;               /* --resume: journal a PNG sequence, continue from it */
    int progress;              /* WbProgressMode */
    int progress_fd;           /* --progress-fd N: where JSON progress goes; 2 = stderr */
    bool quiet, json, dry_run;
    bool want_help;
} WbRenderOptions;

typedef struct WbCheckOptions {
    WbRenderOptions r;         /* scene, --set & co, --frames, --threads, --aa, --json, -q */
    const char *golden;        /* folder of NNNN.png goldens */
    bool update;               /* write/refresh goldens instead of failing */
    int every;                 /* check every Nth frame of the range */
    int tolerance;             /* a pixel differs when a channel differs by more */
    double max_share;          /* fraction of differing pixels a frame may have */
    double min_psnr;           /* dB; 0 = no limit */
} WbCheckOptions;

/* wobble bake SCENE -o STATE: the scene options of render, the state file,
 * frames between snapshots. */
typedef struct WbBakeOptions {
    WbRenderOptions r;         /* scene, --set & co, -o, -q, --json */
    int64_t every;             /* --every K; 0 = WB_SNAPSHOT_SECONDS of frames */
} WbBakeOptions;

/* wobble export SCENE -o BASE: the scene options of render, --frames,
 * --state. */
typedef struct WbExportOptions {
    WbRenderOptions r;         /* scene, --set & co, -o BASE, --frames, --state, -q, --json */
} WbExportOptions;

typedef struct WbPresetsOptions {
    const char *kind;          /* photo | jiggle */
    const char *format;        /* md | csv | json */
    bool fit;                  /* --fit period=P settle=S */
    double fit_period, fit_settle;
    double rate;               /* steps/s of the measurement */
    int integrator;            /* WbSpringIntegrator */
    uint32_t seed;             /* jiggle */
    bool no_timing;            /* rope: leave the µs column out (reproducible output) */
    const char *plot;          /* --plot FILE.png: also chart the curves; NULL = no */
    int plot_w, plot_h;        /* --size WxH of the chart, px (default 960x600) */
    bool want_help;
} WbPresetsOptions;

/* Default of --max-gif-pixels: a GIF keeps every frame (RGBA) until its
 * palette is made at the end; 160 million pixels is 640 MB of them. */
#define WB_MAX_GIF_PIXELS INT64_C(160000000)

typedef struct WbInfoOptions {
    const char *scene;
    const char *sets[WB_MAX_SETS];
    size_t n_sets;
    bool keys;                 /* --keys: list every scene key instead */
    bool tsv;                  /* --tsv: keys as tab-separated fields */
    int64_t max_pixels;        /* --max-pixels (as render's); 0 = WB_MAX_PIXELS */
    int64_t max_events;        /* --max-events (as render's); 0 = WB_MAX_EVENTS */
    bool want_help;
} WbInfoOptions;

/* wobble weights export SHAPE: a jiggle shape's preset paint as a PNG. */
typedef struct WbWeightsOptions {
    const char *shape;         /* orb, capsule, torus, dancer, walker, disc, ring, capsule-2d */
    uint32_t seed;             /* goes into the default file name */
    const char *output;        /* NULL = jiggle-weights-seed-<seed>.png */
    int width, height;         /* map size, default 512x256 */
    bool want_help;
} WbWeightsOptions;

typedef struct WbTestcardOptions {
    const char *output;
    int width, height;
    bool mask;
    bool want_help;
} WbTestcardOptions;

/* SIGINT and SIGTERM while frames are made (signals.c): catching sets
 * wb_cli_stop (to the signal's number), which the frame loop reads between
 * frames; restore puts the old handlers back. */
typedef struct WbCliSignals {
    struct sigaction sig_int, sig_term;
} WbCliSignals;
extern volatile sig_atomic_t wb_cli_stop;
void wb_cli_signals_catch(WbCliSignals *old);
void wb_cli_signals_restore(const WbCliSignals *old);

/* The files a command reads (inputs.c): the scene file (unless it is "-"),
 * the scene's own inputs by kind (photo, mask, weight map) and the --state
 * file (or NULL).  Fills `in` (WB_CLI_MAX_INPUTS entries) and returns the
 * count, for wb_outpath_spare_inputs. */
#define WB_CLI_MAX_INPUTS 5
struct WbScene;
struct WbInputFile;
size_t wb_cli_run_inputs(const struct WbScene *sc, const char *scene_path, const char *state,
                         struct WbInputFile *in);

WbStatus wb_cli_parse_render(int argc, char **argv, WbRenderOptions *o, WbError *err);
void wb_render_options_free(WbRenderOptions *o);
WbStatus wb_cli_parse_check(int argc, char **argv, WbCheckOptions *o, WbError *err);
WbStatus wb_cli_parse_bake(int argc, char **argv, WbBakeOptions *o, WbError *err);
WbStatus wb_cli_parse_export(int argc, char **argv, WbExportOptions *o, WbError *err);
WbStatus wb_cli_parse_presets(int argc, char **argv, WbPresetsOptions *o, WbError *err);
WbStatus wb_cli_parse_info(int argc, char **argv, WbInfoOptions *o, WbError *err);
WbStatus wb_cli_parse_testcard(int argc, char **argv, WbTestcardOptions *o, WbError *err);
WbStatus wb_cli_parse_weights(int argc, char **argv, WbWeightsOptions *o, WbError *err);

void wb_cli_help_main(FILE *f);
void wb_cli_help_render(FILE *f);
void wb_cli_help_check(FILE *f);
void wb_cli_help_presets(FILE *f);
void wb_cli_help_bake(FILE *f);
void wb_cli_help_export(FILE *f);
void wb_cli_help_info(FILE *f);
void wb_cli_help_testcard(FILE *f);
void wb_cli_help_weights(FILE *f);

/* The commands.  They return a status; messages for failures are in err.
 * `cmd_render` may return WB_E_INTERRUPTED after finalizing its output. */
WbStatus wb_cmd_render(const WbRenderOptions *o, WbError *err);
WbStatus wb_cmd_check(const WbCheckOptions *o, WbError *err);
WbStatus wb_cmd_presets(const WbPresetsOptions *o, WbError *err);
/* May return WB_E_INTERRUPTED (nothing written). */
WbStatus wb_cmd_bake(const WbBakeOptions *o, WbError *err);
/* May return WB_E_INTERRUPTED (nothing written). */
WbStatus wb_cmd_export(const WbExportOptions *o, WbError *err);
WbStatus wb_cmd_info(const WbInfoOptions *o, WbError *err);
WbStatus wb_cmd_testcard(const WbTestcardOptions *o, WbError *err);
WbStatus wb_cmd_weights(const WbWeightsOptions *o, WbError *err);

/* s as a JSON string (quoted, control characters escaped) on f. */
void wb_cli_json_string(FILE *f, const char *s);

/* A failure as one JSON line on f, for --json:
 *   {"error": {"code": 2, "message": "...", "file": "a.yaml", "line": 3, "col": 7}}
 * file/line/col only when the error has a place. */
void wb_cli_json_error(FILE *f, const WbError *err);

/* Strict number parsing: the whole string, no overflow, within [lo, hi]. */
WbStatus wb_parse_int(const char *opt, const char *s, long lo, long hi, long *out, WbError *err);
WbStatus wb_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
                         WbError *err);

#endif
