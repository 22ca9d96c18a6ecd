/* fuzz_scene.c — the scene loader: YAML or JSON text, then --set overrides,
 * then binding and validation, all in memory.
 *
 * Input: the scene text, then zero or more overrides, separated by NUL
 * bytes ("wobble: 1\n...\0output.fps=30\0photo.bounce=0.4").  A scene file
 * holding a NUL is refused before parsing, so the separator costs nothing.
 * Overrides go through the command line's own filter (KEY=VALUE with a
 * non-empty KEY, at most WB_FUZZ_MAX_SETS); "output.fps=" ones are
 * credited to --fps as the CLI does, to reach the option-naming messages.
 *
 * Properties checked besides the sanitizers:
 *   - an error has a status of WB_E_INPUT or WB_E_IO and a message, and
 *     prints (with its caret line) without trouble;
 *   - a loaded scene prints as YAML that loads back, and prints the same
 *     the second time (the `wobble info` round trip).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/scene_load.h"

#define WB_FUZZ_MAX_SETS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scene as `wobble info` prints it, in a malloc'd string. */
static char *print_scene(const WbScene *scene, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    wb_scene_print(scene, f);
    if (ferror(f) || fclose(f) != 0)
        abort();
    return buf;
}

static void print_error(const WbError *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    wb_error_print(err, "wobble", f);
    fclose(f);
    free(buf);
}

static void check_round_trip(const WbScene *scene)
{
    size_t len1 = 0, len2 = 0;
    char *text1 = print_scene(scene, &len1);
    WbScene again;
    WbError err;
    wb_error_clear(&err);
    if (wb_scene_load_string("printed.yaml", text1, NULL, 0, &again, &err) != WB_OK) {
        fprintf(stderr, "printed scene does not load back: %s:%d:%d: %s\n--- printed:\n%s",
                err.file, err.line, err.col, err.msg, text1);
        abort();
    }
    char *text2 = print_scene(&again, &len2);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0) {
        fprintf(stderr, "scene prints differently after a round trip\n--- first:\n%s"
                        "--- second:\n%s", text1, text2);
        abort();
    }
    wb_scene_free(&again);
    free(text1);
    free(text2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Own, NUL-terminated copy: the text and each override in turn. */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';

    const char *sets[WB_FUZZ_MAX_SETS], *options[WB_FUZZ_MAX_SETS];
    size_t n_sets = 0;
    const char *text = buf;
    for (size_t at = strlen(buf) + 1; at <= size && n_sets < WB_FUZZ_MAX_SETS;) {
        const char *s = buf + at;
        const char *eq = strchr(s, '=');
        if (eq && eq != s) {
            options[n_sets] = !strncmp(s, "output.fps=", 11) ? "--fps" : NULL;
            sets[n_sets++] = s;
        }
        at += strlen(s) + 1;
    }

    WbScene scene;
    WbError err;
    wb_error_clear(&err);
    WbStatus st = wb_scene_load_string_from("fuzz/scene.yaml", text, sets, options, n_sets,
                                            &scene, &err);
    if (st == WB_OK) {
        check_round_trip(&scene);
        wb_scene_free(&scene);
    } else {
        if ((st != WB_E_INPUT && st != WB_E_IO) || !err.msg[0]) {
            fprintf(stderr, "bad error: status %d, message '%s'\n", (int)st, err.msg);
            abort();
        }
        print_error(&err);
    }
    free(buf);
    return 0;
}
