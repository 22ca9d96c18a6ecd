/* test_scene.c — the scene loader: every malformed scene gets its exact
 * message and place; printing round-trips; precedence of default < preset <
 * file < --set; pixel units survive; the documented defaults are the real
 * ones.  Run from tests/ (fixtures in scenes/). */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "scene/scene_load.h"
#include "scene/schema.h"
#include "sim/fabric.h"

/* ---------------------------------------------------------------- helpers */

static WbStatus load(const char *text, const char *const *sets, size_t n, WbScene *s, WbError *e)
{
    wb_error_clear(e);
    return wb_scene_load_string("t.yaml", text, sets, n, s, e);
}

/* Line `line` (1-based) of text, for comparing the caret's source line. */
static void nth_line(const char *text, int line, char *buf, size_t size)
{
    const char *p = text;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    size_t n = p ? strcspn(p, "\n") : 0;
    if (n >= size)
        n = size - 1;
    memcpy(buf, p ? p : "", n);
    buf[n] = '\0';
}

/* The printed form of a scene, malloc'ed. */
static char *print_scene(const WbScene *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    wb_scene_print(s, f);
    cr_assert_eq(fclose(f), 0);
    return buf;
}

static const char *const MINIMAL = "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n";

/* ------------------------------------------------------- malformed scenes */

typedef struct BadString {
    const char *name, *text;
    const char *sets[2];
    size_t n_sets;
    const char *file;
    int line, col;
    const char *msg;
} BadString;

static const BadString bad_strings[] = {
    {"unknown_far",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  zzz: 1\n",
     {NULL}, 0, "bad.yaml", 5, 3, "unknown key 'zzz' in 'photo'"},
    {"bounce_range",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  bounce: 0.1\n",
     {NULL}, 0, "bad.yaml", 5, 11, "'photo.bounce' must be in [0.16, 1], found 0.1"},
    {"grid_fraction",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  grid: 2.5\n",
     {NULL}, 0, "bad.yaml", 5, 9, "'photo.grid' expects a whole number, found '2.5'"},
    {"bool_yes",
     "wobble: 1\nkind: photo\noutput:\n  until_settled: yes\nphoto:\n  image: a.png\n",
     {NULL}, 0, "bad.yaml", 4, 18, "'output.until_settled' expects true or false, found 'yes'"},
    {"kind_unknown",
     "wobble: 1\nkind: fotos\n",
     {NULL}, 0, "bad.yaml", 2, 7, "'kind' expects photo | jiggle | cloth | rope, found 'fotos'"},
    {"missing_version",
     "kind: photo\nphoto:\n  image: a.png\n",
     {NULL}, 0, "bad.yaml", 1, 1, "missing required key 'wobble'"},
    {"missing_photo",
     "wobble: 1\nkind: photo\nseed: 3\n",
     {NULL}, 0, "bad.yaml", 1, 1, "missing required key 'photo' (kind photo needs a photo block with an image)"},
    {"color_hex",
     "wobble: 1\nkind: photo\noutput:\n  background: \"#ff00zz\"\nphoto:\n  image: a.png\n",
     {NULL}, 0, "bad.yaml", 4, 15, "'output.background' expects a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b], [r, g, b, a] or transparent), found the string \"#ff00zz\""},
    {"color_channel",
     "wobble: 1\nkind: photo\noutput:\n  background: [1, 0, 2]\nphoto:\n  image: a.png\n",
     {NULL}, 0, "bad.yaml", 4, 22, "'output.background' channels must be in [0, 1], found 2"},
    {"length_unit",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  radius: 40pt\n",
     {NULL}, 0, "bad.yaml", 5, 11, "'photo.radius' expects a length (a fraction of the shorter edge like 0.2, pixels like 40px, or auto), found '40pt'"},
    {"point_3",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  segment: {at: [0.5, 0.5, 0.5]}\n",
     {NULL}, 0, "bad.yaml", 5, 17, "'photo.segment.at' expects a point [x, y] (0..1 across the image, or pixels like [312px, 80px]), found a sequence of 3 items"},
    {"no_action",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - time: 1\n",
     {NULL}, 0, "bad.yaml", 6, 5, "'timeline[0]' needs an action: one of grab, release, pin, unpin, set"},
    {"pin_dup_name",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - {time: 0, pin: {at: [0.5, 0.5], name: left}}\n  - {time: 1, pin: {at: [0.2, 0.5], name: left}}\n",
     {NULL}, 0, "bad.yaml", 7, 15, "a pin named 'left' is already active (set at line 6)"},
    {"path_before_grab",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - time: 0.5\n    grab: {at: [0.5, 0.5], path: [{time: 0.5, to: [0.6, 0.5]}]}\n",
     {NULL}, 0, "bad.yaml", 7, 42, "'timeline[0].grab.path[0].time' must be later than the grab's time 0.5, found 0.5"},
    {"top_seq",
     "- wobble: 1\n",
     {NULL}, 0, "bad.yaml", 1, 1, "a scene is a mapping of keys (wobble, kind, output, ...), found a sequence of 1 item"},
    {"two_docs",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n---\nwobble: 1\n",
     {NULL}, 0, "bad.yaml", 5, 1, "a scene holds one YAML document; found a second one"},
    {"event_typo",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - time: 1\n    grap: {at: [0.5, 0.5]}\n",
     {NULL}, 0, "bad.yaml", 7, 5, "unknown key 'grap' in 'timeline[0]' (did you mean 'grab'?)"},
    {"seed_negative",
     "wobble: 1\nkind: photo\nseed: -1\nphoto:\n  image: a.png\n",
     {NULL}, 0, "bad.yaml", 3, 7, "'seed' must be in [0, 4294967295], found -1"},
    {"timeline_map",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline: {time: 1}\n",
     {NULL}, 0, "bad.yaml", 5, 11, "'timeline' expects a list of events, found a mapping"},
    {"event_time_negative",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - {time: -1, release: {}}\n",
     {NULL}, 0, "bad.yaml", 6, 12, "'timeline[0].time' must be in [0, 1000000], found -1"},
    {"px_negative",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  segment: {at: [-3px, 0.5]}\n",
     {NULL}, 0, "bad.yaml", 5, 18, "'photo.segment.at' x must be in [0px, 1000000px], found -3px"},
    {"ease_typo",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - {time: 0, grab: {at: [0.5, 0.5], path: [{time: 1, to: [0.5, 0.6], ease: inout}]}}\n",
     {NULL}, 0, "bad.yaml", 6, 77, "'timeline[0].grab.path[0].ease' expects linear | in | out | in-out | step, found 'inout' (did you mean 'in-out'?)"},
    {"set_unknown",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"output.widht=3"}, 1, "--set", 1, 8, "unknown key 'widht' in 'output' (did you mean 'width'?)"},
    {"set_value",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"output.fps=abc"}, 1, "--set", 1, 12, "'output.fps' expects a number, found 'abc'"},
    {"set_index",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - {time: 0, release: {}}\n",
     {"timeline.5.time=1"}, 1, "--set", 1, 10, "item 5 does not exist: 'timeline' has 1 item"},
    {"set_scalar",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"photo.grid.x=1"}, 1, "--set", 1, 7, "'photo.grid' expects a whole number, found a mapping"},
    {"set_noeq",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"photo.grid"}, 1, "--set", 1, 1, "expected key.path=value, found 'photo.grid'"},
    {"set_nested",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"photo.segment={at: [0.5, 0.5], tolerance: 2}"}, 1, "--set", 1, 43, "'photo.segment.tolerance' must be in [0, 1], found 2"},
    {"set_syntax",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\n",
     {"photo.segment={at: [0.5"}, 1, "--set", 1, 24, "invalid YAML: did not find expected ',' or ']' while parsing a flow sequence that started at line 1, column 20"},
    {"set_seq_word",
     "wobble: 1\nkind: photo\nphoto:\n  image: a.png\ntimeline:\n  - {time: 0, release: {}}\n",
     {"timeline.first.time=1"}, 1, "--set", 1, 10, "'timeline' is a list: expected an item number, found 'first'"},
    {"grab_without_at",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n  - time: 1\n    grab:\n",
     {NULL}, 0, "bad.yaml", 6, 5, "missing required key 'at' in 'timeline[0].grab'"},
    {"key_without_time",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n"
     "  - {time: 1, grab: {at: [0.5, 0.5], path: [{to: [0.5, 0.5]}]}}\n",
     {NULL}, 0, "bad.yaml", 5, 45, "missing required key 'time' in 'timeline[0].grab.path[0]'"},
    {"photo_null",
     "wobble: 1\nkind: photo\nphoto:\n",
     {NULL}, 0, "bad.yaml", 3, 1, "missing required key 'image' in 'photo'"},
    {"set_creates_bad_block",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\n",
     {"photo.segment.tolerance=0.5"}, 1, "--set", 1, 7, "missing required key 'at' in 'photo.segment'"},
    {"event_duplicate_key",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n  - time: 1\n    time: 2\n    release: {}\n",
     {NULL}, 0, "bad.yaml", 6, 5, "duplicate key 'timeline[0].time' (first given at line 5)"},
    {"event_unknown_far",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n  - {time: 1, zzzzzz: {}}\n",
     {NULL}, 0, "bad.yaml", 5, 15,
     "unknown key 'zzzzzz' in 'timeline[0]' (expected time and one of grab, release, pin, unpin, set)"},
    {"event_not_a_map",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n  - grab\n",
     {NULL}, 0, "bad.yaml", 5, 5,
     "'timeline[0]' expects a mapping like {time: 1, grab: {...}}, found 'grab'"},
    {"action_not_a_map",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n  - {time: 1, pin: [0.5, 0.5]}\n",
     {NULL}, 0, "bad.yaml", 5, 20, "'timeline[0].pin' expects a mapping, found a sequence of 2 items"},
    {"set_into_scalar",
     "wobble: 1\nkind: photo\noutput: {fps: 30}\nphoto: {image: a.png}\n",
     {"output.fps.x=1"}, 1, "--set", 1, 12,
     "'output.fps' holds a value, not a mapping; cannot set 'output.fps.x'"},
    {"set_empty_segment",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\n",
     {"output..fps=1"}, 1, "--set", 1, 8, "empty key in 'output..fps'"},
    {"set_second_bad",
     "wobble: 1\nkind: photo\nphoto: {image: a.png}\n",
     {"output.fps=24", "photo.grid=0"}, 2, "--set", 1, 12, "'photo.grid' must be in [1, 2048], found 0"},
};

Test(scene, bad_strings_exact_messages)
{
    cr_assert_geq(sizeof bad_strings / sizeof *bad_strings, 25);
    for (size_t i = 0; i < sizeof bad_strings / sizeof *bad_strings; i++) {
        const BadString *c = &bad_strings[i];
        WbScene s;
        WbError e;
        wb_error_clear(&e);
        WbStatus st = wb_scene_load_string("bad.yaml", c->text, c->sets, c->n_sets, &s, &e);
        cr_expect_eq(st, WB_E_INPUT, "%s: status %d", c->name, st);
        cr_expect_eq(e.status, WB_E_INPUT, "%s", c->name);
        cr_expect_str_eq(e.msg, c->msg, "%s", c->name);
        cr_expect_str_eq(e.file, c->file, "%s", c->name);
        cr_expect_eq(e.line, c->line, "%s: line %d", c->name, e.line);
        cr_expect_eq(e.col, c->col, "%s: col %d", c->name, e.col);
        /* The caret's line is the offending line of the file, or the whole
         * key=value of the --set. */
        char want[256];
        if (!strcmp(c->file, "--set"))
            snprintf(want, sizeof want, "%s", c->sets[c->n_sets - 1]);
        else
            nth_line(c->text, c->line, want, sizeof want);
        cr_expect_str_eq(e.source, want, "%s", c->name);
    }
}

typedef struct BadFile {
    const char *name;
    int line, col;
    const char *msg;
} BadFile;

/* tests/scenes/bad/NAME.yaml; tests/cli/t_scene.sh checks the same files
 * through `wobble info`. */
static const BadFile bad_files[] = {
    {"unknown-top", 3, 1, "unknown key 'outptu' at the top level (did you mean 'output'?)"},
    {"unknown-prefix", 5, 3, "unknown key 'freq' in 'photo' (did you mean 'frequency'?)"},
    {"duplicate", 5, 3, "duplicate key 'output.fps' (first given at line 4)"},
    {"fps-range", 3, 15, "'output.fps' must be in (0, 1000], found 2000"},
    {"quoted-number", 4, 8, "'output.fps' expects a number, found the string \"30\""},
    {"enum-typo", 5, 15, "'photo.integrator' expects euler | exact, found 'eular' (did you mean 'euler'?)"},
    {"kind-cloth", 4, 11, "'cloth.fabric' expects chiffon | silk | cotton | wool | denim | leather, found 'slik' (did you mean 'silk'?)"},
    {"version", 1, 9, "scene format version 2 is not supported; this build reads version 1"},
    {"missing-image", 3, 1, "missing required key 'image' in 'photo'"},
    {"color-comment", 4, 14, "'output.background' expects a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b], [r, g, b, a] or transparent), found nothing (a '#' after a space starts a YAML comment: quote the colour)"},
    {"point-x", 5, 18, "'photo.segment.at' x must be in [0, 1], found 1.5"},
    {"mask-segment", 6, 3, "'photo.segment' and 'photo.mask' cannot be used together; give one of them"},
    {"two-actions", 8, 5, "'timeline[0]' has two actions, 'release' and 'pin'; give one per event"},
    {"no-time", 6, 5, "missing required key 'time' in 'timeline[0]'"},
    {"grab-twice", 9, 5, "grab at 1 s while the grab from line 7 is still held (release it first)"},
    {"release-alone", 7, 5, "release at 1 s with no active grab"},
    {"five-pins", 10, 15, "pin at 4 s would make 5 pins active; at most 4 at once (unpin one first)"},
    {"unpin-unknown", 7, 15, "unpin at 1 s: no active pin is named 'right'"},
    {"path-order", 11, 18, "'timeline[0].grab.path[1].time' must be later than the previous key's time 0.8, found 0.7"},
    {"yaml-unclosed", 4, 6, "invalid YAML: did not find expected ',' or '}' while parsing a flow mapping that started at line 3, column 9"},
    {"yaml-tab", 4, 1, "invalid YAML: found character that cannot start any token while scanning for the next token (tabs are not allowed for indentation; use spaces)"},
    {"alias", 4, 8, "aliases (*o) are not supported in scene files; write the value out"},
    {"empty", 1, 1, "empty scene: expected a mapping that starts with 'wobble: 1'"},
};

Test(scene, bad_files_exact_messages)
{
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; i++) {
        const BadFile *c = &bad_files[i];
        char path[256];
        snprintf(path, sizeof path, "scenes/bad/%s.yaml", c->name);
        WbScene s;
        WbError e;
        wb_error_clear(&e);
        WbStatus st = wb_scene_load(path, NULL, 0, &s, &e);
        cr_expect_eq(st, WB_E_INPUT, "%s", c->name);
        cr_expect_str_eq(e.file, path, "%s", c->name);
        cr_expect_eq(e.line, c->line, "%s: line %d", c->name, e.line);
        cr_expect_eq(e.col, c->col, "%s: col %d", c->name, e.col);
        cr_expect_str_eq(e.msg, c->msg, "%s", c->name);
        cr_expect(e.source[0] || c->line == 0, "%s: no source line", c->name);
    }
}

Test(scene, missing_file)
{
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load("scenes/no-such.yaml", NULL, 0, &s, &e), WB_E_INPUT);
    cr_expect_str_eq(e.msg, "cannot open scene 'scenes/no-such.yaml': No such file or directory");
    cr_expect_str_eq(e.file, "");
}

Test(scene, set_error_in_quoted_value_points_inside_it)
{
    const char *sets[] = {"timeline.0.grab.at=[0.5, \"x\"]"};
    WbScene s;
    WbError e;
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n"
                      "  - {time: 0, grab: {at: [0.5, 0.5]}}\n", sets, 1, &s, &e), WB_E_INPUT);
    cr_expect_str_eq(e.file, "--set");
    cr_expect_eq(e.line, 1);
    cr_expect_eq(e.col, 26);   /* the "x" */
    cr_expect_str_eq(e.msg, "'timeline[0].grab.at' expects a coordinate (0..1 or pixels like "
                            "312px), found the string \"x\"");
}

/* ------------------------------------------------------------- defaults */

Test(scene, minimal_scene_is_all_defaults)
{
    WbScene s, d;
    WbError e;
    cr_assert_eq(load(MINIMAL, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    wb_scene_default(&d);
    cr_expect_str_eq(s.photo.image, "a.png");
    cr_expect_str_eq(s.path, "t.yaml");
    cr_expect_eq(s.version, 1);
    cr_expect_eq(s.kind, WB_KIND_PHOTO);
    cr_expect_eq(s.output.fps, 30.0);
    cr_expect_eq(s.output.duration, 3.0);
    cr_expect_eq(s.output.width, 0);
    cr_expect_eq(s.output.background.a, 1.0);
    cr_expect_not(s.output.transparent);
    cr_expect_eq(s.photo.grid, 512);
    cr_expect_eq(s.photo.frequency, 2.0);
    cr_expect_eq(s.photo.bounce, 0.3);
    cr_expect_eq(s.photo.rate, 240.0);
    cr_expect(s.photo.radius.automatic);
    cr_expect_eq(s.photo.settle_epsilon, 2e-5);
    cr_expect_not(s.photo.segment.enabled);
    cr_expect_eq(s.n_events, 0);
    cr_expect_null(s.events);
    /* Everything but the image and the name equals wb_scene_default. */
    memcpy(d.photo.image, s.photo.image, sizeof d.photo.image);
    memcpy(d.path, s.path, sizeof d.path);
    cr_expect_eq(memcmp(&d.output, &s.output, sizeof d.output), 0);
    cr_expect_eq(memcmp(&d.photo, &s.photo, sizeof d.photo), 0);
    wb_scene_free(&s);
}

Test(scene, print_of_minimal_scene_is_exact)
{
    WbScene s;
    WbError e;
    cr_assert_eq(load(MINIMAL, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    char *got = print_scene(&s);
    cr_expect_str_eq(got,
                     "wobble: 1\n"
                     "kind: photo\n"
                     "seed: 0\n"
                     "output:\n"
                     "  width: 0\n"
                     "  height: 0\n"
                     "  scale: 1\n"
                     "  fps: 30\n"
                     "  duration: 3\n"
                     "  until_settled: false\n"
                     "  settle_hold: 0\n"
                     "  preroll: 0\n"
                     "  background: \"#000000\"\n"
                     "  fit: fit\n"
                     "  loop_count: 0\n"
                     "  loop: false\n"
                     "  loop_periods: 1\n"
                     "  pingpong: false\n"
                     "  motion_blur: {samples: 1, shutter: 0.5}\n"
                     "photo:\n"
                     "  image: \"a.png\"\n"
                     "  grid: 512\n"
                     "  preset: none\n"
                     "  frequency: 2\n"
                     "  elasticity: 0\n"
                     "  bounce: 0.3\n"
                     "  integrator: euler\n"
                     "  rate: 240\n"
                     "  radius: auto\n"
                     "  grip: 0.35\n"
                     "  settle_epsilon: 2e-05\n"
                     "  fold_limit: true\n"
                     "  mask: \"\"\n"
                     "  fill: inpaint\n"
                     "  edge: clamp\n"
                     "timeline: []\n");
    free(got);
    wb_scene_free(&s);
}

/* Every documented default, written out explicitly, changes nothing. */
typedef struct DefCheck {
    const char *base;
    int checked;
} DefCheck;

static void check_default(const char *path, const char *type, const char *def, const char *doc,
                          void *ud)
{
    DefCheck *dc = ud;
    cr_expect(doc[0], "%s has no doc", path);
    cr_expect(type[0], "%s has no type", path);
    /* Keys of an optional block (photo.segment) only exist with their block. */
    if (!def[0] || !strcmp(def, "required") || strchr(path, '[') || !strcmp(type, "mapping") || !strcmp(path, "timeline") ||
        !strncmp(path, "photo.segment.", 14))
        return;
    char set[256];
    snprintf(set, sizeof set, "%s=%s", path, def);
    const char *sets[] = {set};
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    WbStatus st = wb_scene_load_string("t.yaml", MINIMAL, sets, 1, &s, &e);
    cr_expect_eq(st, WB_OK, "%s: %s", set, e.msg);
    if (st)
        return;
    char *got = print_scene(&s);
    cr_expect_str_eq(got, dc->base, "default of %s", path);
    free(got);
    wb_scene_free(&s);
    dc->checked++;
}

Test(scene, documented_defaults_are_the_defaults)
{
    WbScene s;
    WbError e;
    cr_assert_eq(load(MINIMAL, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    DefCheck dc = {print_scene(&s), 0};
    wb_scene_free(&s);
    wb_scene_keys(check_default, &dc);
    cr_expect_geq(dc.checked, 18);
    free((char *)dc.base);
}

/* --------------------------------------------------------------- keys */

typedef struct KeyList {
    char paths[256][64];
    int n;
} KeyList;

static void collect_key(const char *path, const char *type, const char *def, const char *doc,
                        void *ud)
{
    (void)type;
    (void)def;
    (void)doc;
    KeyList *k = ud;
    cr_assert_lt(k->n, 256);
    snprintf(k->paths[k->n++], 64, "%s", path);
}

static bool has_key(const KeyList *k, const char *path)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->paths[i], path))
            return true;
    return false;
}

Test(scene, keys_cover_the_format)
{
    KeyList k = {.n = 0};
    wb_scene_keys(collect_key, &k);
    static const char *const want[] = {
        "wobble", "kind", "seed", "output", "output.width", "output.height", "output.scale",
        "output.fps",
        "output.duration", "output.until_settled", "output.settle_hold", "output.preroll", "output.background",
        "output.fit", "output.loop_count", "output.loop", "output.loop_periods",
        "output.pingpong", "output.motion_blur", "output.motion_blur.samples",
        "output.motion_blur.shutter", "photo", "photo.image", "photo.grid", "photo.preset", "photo.frequency",
        "photo.elasticity", "photo.bounce", "photo.integrator", "photo.rate", "photo.radius",
        "photo.grip", "photo.settle_epsilon", "photo.fold_limit", "photo.mask", "photo.segment",
        "photo.segment.at",
        "photo.segment.tolerance", "photo.fill", "photo.edge", "timeline", "timeline[].time", "timeline[].grab",
        "timeline[].grab.at", "timeline[].grab.radius", "timeline[].grab.path",
        "timeline[].grab.path[].time", "timeline[].grab.path[].to",
        "timeline[].grab.path[].ease", "timeline[].release", "timeline[].pin",
        "timeline[].pin.at", "timeline[].pin.radius", "timeline[].pin.name", "timeline[].unpin",
        "timeline[].unpin.name",
        /* kind rope */
        "rope", "rope.solver", "rope.passes", "rope.damping", "rope.gravity", "rope.step",
        "rope.max_frame_delta", "rope.settle_speed", "rope.view", "rope.view.width",
        "rope.view.height", "rope.ropes", "rope.ropes[].from", "rope.ropes[].to",
        "rope.ropes[].nodes", "rope.ropes[].length", "rope.ropes[].pin", "rope.ropes[].end_mass",
        "rope.ropes[].width", "rope.ropes[].colour", "rope.ropes[].start_path",
        "rope.ropes[].start_path[].time", "rope.ropes[].start_path[].to",
        "rope.ropes[].start_path[].ease", "rope.ropes[].end_path", "rope.ropes[].end_path[].time",
        "rope.ropes[].end_path[].to", "rope.ropes[].end_path[].ease", "rope.obstacles",
        "rope.obstacles[].points", "rope.obstacles[].colour", "timeline[].cut",
        "timeline[].cut.rope", "timeline[].cut.link",
        /* kind jiggle */
        "jiggle", "jiggle.view", "jiggle.shape", "jiggle.freq", "jiggle.damp", "jiggle.gravity",
        "jiggle.rate", "jiggle.weights", "jiggle.force_radius", "jiggle.gain", "jiggle.gain.all",
        "jiggle.gain.bone0", "jiggle.gain.bone1", "jiggle.gain.bone2", "jiggle.limit",
        "jiggle.restitution", "jiggle.floor", "jiggle.floor.y", "jiggle.ring_collider",
        "jiggle.ring_collider.at", "jiggle.ring_collider.radius",
        "jiggle.capsule_collider", "jiggle.capsule_collider.a", "jiggle.capsule_collider.b",
        "jiggle.capsule_collider.radius", "jiggle.chain", "jiggle.overlay",
        "jiggle.window", "jiggle.colour", "jiggle.drive", "jiggle.drive.path",
        "jiggle.drive.path[].time", "jiggle.drive.path[].to", "jiggle.drive.path[].ease",
        "jiggle.drive.accel", "jiggle.drive.accel[].time", "jiggle.drive.accel[].to",
        "jiggle.drive.accel[].ease", "jiggle.drive.orbit", "jiggle.drive.orbit.yaw",
        "jiggle.drive.orbit.pitch", "jiggle.drive.orbit.period", "jiggle.drive.orbit.gain",
        "jiggle.drive.walk", "jiggle.drive.walk.bob", "jiggle.drive.walk.period",
        "jiggle.drive.gain",
        "jiggle.drive.smoothing", "jiggle.camera", "jiggle.camera.yaw", "jiggle.camera.pitch",
        "jiggle.camera.distance", "jiggle.camera.fov", "jiggle.squash", "jiggle.heatmap",
        "timeline[].reseed", "timeline[].reseed.seed",
        "timeline[].shake", "timeline[].shake.span",
        /* kind cloth (timeline[].release is listed twice: photo and cloth) */
        "cloth", "cloth.grid", "cloth.size", "cloth.centre", "cloth.layout", "cloth.fabric",
        "cloth.stiffness", "cloth.weight", "cloth.damping", "cloth.bend_stiffness",
        "cloth.friction", "cloth.wind_response", "cloth.solver", "cloth.bending",
        "cloth.substeps", "cloth.iterations", "cloth.self_collision", "cloth.thickness",
        "cloth.max_stretch", "cloth.margin", "cloth.gravity", "cloth.floor", "cloth.floor_y",
        "cloth.pin", "cloth.pins", "cloth.pins[].name", "cloth.pins[].i", "cloth.pins[].j",
        "cloth.mannequin", "cloth.mannequin.at", "cloth.mannequin.scale",
        "cloth.mannequin.colour", "cloth.spheres", "cloth.spheres[].centre",
        "cloth.spheres[].radius", "cloth.spheres[].colour", "cloth.boxes",
        "cloth.boxes[].centre", "cloth.boxes[].size", "cloth.boxes[].colour", "cloth.wind",
        "cloth.wind.strength", "cloth.wind.direction", "cloth.wind.bias", "cloth.camera",
        "cloth.camera.target", "cloth.camera.yaw", "cloth.camera.pitch",
        "cloth.camera.distance", "cloth.camera.fov", "cloth.camera.eye", "cloth.colour",
        "cloth.sheen", "cloth.gloss", "cloth.floor_colour", "cloth.settle_speed",
        "timeline[].release.pin", "timeline[].wind", "timeline[].wind.strength",
        "timeline[].wind.direction", "timeline[].wind.bias", "timeline[].wind.ramp",
        "timeline[].set", "timeline[].set.key", "timeline[].set.to", "timeline[].set.over",
        "timeline[].set.ease", "timeline[].teleport", "timeline[].teleport.by",
        "timeline[].reset"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(has_key(&k, want[i]), "missing key %s", want[i]);
    /* listed twice (another kind's action of the same name): release,
     * teleport and teleport.by (cloth's [dx, dy, dz]) */
    cr_expect_eq(k.n, (int)(sizeof want / sizeof *want) + 3);
}

/* ------------------------------------------------------------ round trip */

static void expect_round_trip(const char *name)
{
    WbScene a, b;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load(name, NULL, 0, &a, &e), WB_OK, "%s: %s:%d:%d: %s", name, e.file,
                 e.line, e.col, e.msg);
    char *first = print_scene(&a);
    /* Reloaded under a name in the current folder: the printed paths are
     * already resolved. */
    cr_assert_eq(wb_scene_load_string("printed.yaml", first, NULL, 0, &b, &e), WB_OK,
                 "%s reprinted: %d:%d: %s\n%s", name, e.line, e.col, e.msg, first);
    char *second = print_scene(&b);
    cr_expect_str_eq(second, first, "%s", name);
    cr_expect_eq(memcmp(&a.output, &b.output, sizeof a.output), 0, "%s", name);
    cr_expect_eq(memcmp(&a.photo, &b.photo, sizeof a.photo), 0, "%s", name);
    cr_expect_eq(a.seed, b.seed);
    cr_assert_eq(a.n_events, b.n_events);
    for (size_t i = 0; i < a.n_events; i++) {
        cr_expect_eq(a.events[i].type, b.events[i].type);
        cr_expect_eq(a.events[i].time, b.events[i].time);
        if (a.events[i].type == WB_EVENT_GRAB) {
            cr_assert_eq(a.events[i].u.grab.n_path, b.events[i].u.grab.n_path);
            for (size_t j = 0; j < a.events[i].u.grab.n_path; j++)
                cr_expect_eq(memcmp(&a.events[i].u.grab.path[j], &b.events[i].u.grab.path[j],
                                    sizeof(WbKey)), 0);
        }
    }
    free(first);
    free(second);
    wb_scene_free(&a);
    wb_scene_free(&b);
}

Test(scene, print_round_trips)
{
    expect_round_trip("scenes/good/full.yaml");
    expect_round_trip("scenes/good/pixels.yaml");
    expect_round_trip("scenes/good/scene.json");
}

Test(scene, round_trip_keeps_odd_values)
{
    /* Colours off the 8-bit grid, a preset below the hand-written bounce
     * range, numbers that need 17 digits, a quote in a name. */
    const char *text = "wobble: 1\nkind: photo\nseed: 4294967295\n"
                       "output: {background: [0.1, 0.2, 0.3], fps: 29.97, duration: 0.1}\n"
                       "photo: {image: \"we\\\"ird.png\", preset: spring, elasticity: -0.3333333333333333}\n"
                       "timeline:\n  - {time: 0.1, pin: {at: [1, 0], name: \"a\\\\b\"}}\n";
    WbScene a, b;
    WbError e;
    cr_assert_eq(load(text, NULL, 0, &a, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(a.photo.bounce, 0.174806);
    char *p = print_scene(&a);
    cr_expect(strstr(p, "  # bounce: 0.174806  (set by the preset)\n"), "%s", p);
    cr_assert_eq(load(p, NULL, 0, &b, &e), WB_OK, "%s\n%s", e.msg, p);
    cr_expect_eq(memcmp(&a.output, &b.output, sizeof a.output), 0);
    cr_expect_eq(memcmp(&a.photo, &b.photo, sizeof a.photo), 0);
    cr_expect_eq(b.seed, 4294967295u);
    cr_expect_str_eq(b.photo.image, "we\"ird.png");
    cr_expect_str_eq(b.events[0].u.pin.name, "a\\b");
    free(p);
    wb_scene_free(&a);
    wb_scene_free(&b);
}

/* ------------------------------------------------------------ precedence */

Test(scene, set_overrides_file_and_later_set_wins)
{
    const char *sets[] = {"output.fps=60", "output.width=320", "output.fps=50",
                          "seed=9"};
    WbScene s;
    WbError e;
    cr_assert_eq(load("wobble: 1\nkind: photo\noutput: {fps: 24}\nphoto: {image: a.png}\n", sets,
                      4, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.output.fps, 50.0);
    cr_expect_eq(s.output.width, 320);
    cr_expect_eq(s.seed, 9u);
    wb_scene_free(&s);
}

Test(scene, set_creates_blocks_and_indexes_lists)
{
    const char *sets[] = {"photo.image=cli.png", "photo.segment={at: [0.5,0.5], tolerance: 0.2}",
                          "timeline.0.time=0.5", "timeline.1={time: 2, release: {}}",
                          "output.background=#ff0000"};
    WbScene s;
    WbError e;
    cr_assert_eq(wb_scene_load_string("dir/t.yaml",
                                      "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n"
                                      "  - {time: 0, grab: {at: [0.5, 0.5]}}\n",
                                      sets, 5, &s, &e), WB_OK, "%s", e.msg);
    /* Paths from the file follow the file; paths typed on the command line
     * follow the current folder. */
    cr_expect_str_eq(s.photo.image, "cli.png");
    cr_expect(s.photo.segment.enabled);
    cr_expect_eq(s.photo.segment.tolerance, 0.2);
    cr_assert_eq(s.n_events, 2);
    cr_expect_eq(s.events[0].time, 0.5);
    cr_expect_eq(s.events[1].type, WB_EVENT_RELEASE);
    cr_expect_eq(s.output.background.r, 1.0);
    cr_expect_eq(s.output.background.g, 0.0);
    wb_scene_free(&s);

    cr_assert_eq(wb_scene_load_string("dir/t.yaml", "wobble: 1\nkind: photo\nphoto: {image: a.png, mask: m.png}\n",
                                      NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_str_eq(s.photo.image, "dir/a.png");
    cr_expect_str_eq(s.photo.mask, "dir/m.png");
    wb_scene_free(&s);
}

Test(scene, null_turns_an_optional_block_off)
{
    const char *sets[] = {"photo.segment="};
    WbScene s;
    WbError e;
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: a.png, mask: m.png, segment: {at: [0.5, 0.5]}}\n",
                      sets, 1, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_not(s.photo.segment.enabled);
    cr_expect_str_eq(s.photo.mask, "m.png");
    char *p = print_scene(&s);
    cr_expect_null(strstr(p, "segment"), "%s", p);
    free(p);
    wb_scene_free(&s);
}

Test(scene, set_can_clear_a_conflict)
{
    const char *sets[] = {"photo.mask="};
    WbScene s;
    WbError e;
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: a.png, mask: m.png, segment: {at: [0.5, 0.5]}}\n",
                      sets, 1, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_str_eq(s.photo.mask, "");
    cr_expect(s.photo.segment.enabled);
    wb_scene_free(&s);
}

Test(scene, preset_values)
{
    WbPhotoDef p;
    memset(&p, 0, sizeof p);
    p.frequency = 7;
    p.bounce = 0.7;
    wb_photo_preset_apply(&p, WB_PRESET_NONE);
    cr_expect_eq(p.frequency, 7.0);
    cr_expect_eq(p.bounce, 0.7);
    wb_photo_preset_apply(&p, WB_PRESET_SPRING);
    cr_expect_eq(p.frequency, 2.52432);
    cr_expect_eq(p.bounce, 0.174806);
    wb_photo_preset_apply(&p, WB_PRESET_RUBBER);
    cr_expect_eq(p.frequency, 2.09825);
    cr_expect_eq(p.bounce, 0.377106);
    wb_photo_preset_apply(&p, WB_PRESET_JELLY);
    cr_expect_eq(p.frequency, 1.61413);
    cr_expect_eq(p.bounce, 0.202637);
}

Test(scene, explicit_keys_beat_the_preset_in_any_order)
{
    WbScene s;
    WbError e;
    /* bounce written before the preset still wins; frequency comes from it. */
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto:\n  image: a.png\n  bounce: 0.5\n"
                      "  preset: jelly\n", NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.photo.preset, WB_PRESET_JELLY);
    cr_expect_eq(s.photo.bounce, 0.5);
    cr_expect_eq(s.photo.frequency, 1.61413);
    wb_scene_free(&s);

    /* A preset given with --set does not beat the file's explicit key
     * either, but --set on the key itself does. */
    const char *sets[] = {"photo.preset=rubber", "photo.frequency=3"};
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: a.png, bounce: 0.9, frequency: 4}\n",
                      sets, 2, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.photo.preset, WB_PRESET_RUBBER);
    cr_expect_eq(s.photo.bounce, 0.9);
    cr_expect_eq(s.photo.frequency, 3.0);
    wb_scene_free(&s);

    const char *sets2[] = {"photo.preset=rubber"};
    cr_assert_eq(load(MINIMAL, sets2, 1, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.photo.bounce, 0.377106);
    cr_expect_eq(s.photo.frequency, 2.09825);
    wb_scene_free(&s);
}

/* ----------------------------------------------------------- value types */

Test(scene, pixel_units_are_kept)
{
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load("scenes/good/pixels.yaml", NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_str_eq(s.photo.image, "scenes/good/../photo.png");
    cr_expect(s.photo.radius.px);
    cr_expect_not(s.photo.radius.automatic);
    cr_expect_eq(s.photo.radius.value, 40.0);
    cr_expect_eq(s.photo.preset, WB_PRESET_RUBBER);
    cr_expect_eq(s.photo.bounce, 0.5);
    cr_expect_eq(s.photo.frequency, 2.09825);
    cr_expect_eq(s.output.fit, WB_FIT_COVER);
    cr_expect_eq(s.output.background.g, 0.25);
    cr_expect_eq(s.output.background.a, 0.5);
    cr_assert_eq(s.n_events, 2);
    const WbEvent *g = &s.events[0];
    cr_assert_eq(g->type, WB_EVENT_GRAB);
    cr_expect(g->u.grab.at.px_x);
    cr_expect_not(g->u.grab.at.px_y);
    cr_expect_eq(g->u.grab.at.x, 312.0);
    cr_expect_eq(g->u.grab.at.y, 0.25);
    cr_expect_not(g->u.grab.radius.px);
    cr_expect_eq(g->u.grab.radius.value, 0.1);
    cr_assert_eq(g->u.grab.n_path, 1);
    cr_expect_eq(g->u.grab.path[0].ease, WB_EASE_STEP);
    cr_expect(g->u.grab.path[0].to.px_x && g->u.grab.path[0].to.px_y);
    cr_expect_eq(g->src_line, 11);
    cr_expect_eq(g->src_col, 5);

    /* Resolution once the image is known: 640×480, shorter edge 480. */
    cr_expect_float_eq(wb_len_resolve(s.photo.radius, 640, 480, 0.0), 40.0 / 480.0, 1e-15);
    cr_expect_eq(wb_len_resolve(g->u.grab.radius, 640, 480, 0.0), 0.1);
    WbLen automatic = {0, false, true};
    cr_expect_eq(wb_len_resolve(automatic, 640, 480, 1.0 / 6.0), 1.0 / 6.0);
    double x, y;
    wb_point_resolve(g->u.grab.at, 640, 480, &x, &y);
    cr_expect_eq(x, 312.0 / 640.0);
    cr_expect_eq(y, 0.25);
    wb_scene_free(&s);
}

Test(scene, colours)
{
    static const struct {
        const char *text;
        double r, g, b, a;
        bool transparent;
    } cases[] = {
        {"\"#ff8000\"", 1, 128 / 255.0, 0, 1, false},
        {"\"#FF800080\"", 1, 128 / 255.0, 0, 128 / 255.0, false},
        {"[0.5, 0.25, 0]", 0.5, 0.25, 0, 1, false},
        {"[0.5, 0.25, 0, 0.125]", 0.5, 0.25, 0, 0.125, false},
        {"transparent", 0, 0, 0, 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[256];
        snprintf(text, sizeof text, "%soutput: {background: %s}\n", MINIMAL, cases[i].text);
        WbScene s;
        WbError e;
        cr_assert_eq(load(text, NULL, 0, &s, &e), WB_OK, "%s: %s", cases[i].text, e.msg);
        cr_expect_eq(s.output.background.r, cases[i].r, "%s", cases[i].text);
        cr_expect_eq(s.output.background.g, cases[i].g, "%s", cases[i].text);
        cr_expect_eq(s.output.background.b, cases[i].b, "%s", cases[i].text);
        cr_expect_eq(s.output.background.a, cases[i].a, "%s", cases[i].text);
        cr_expect_eq(s.output.transparent, cases[i].transparent, "%s", cases[i].text);
        wb_scene_free(&s);
    }
}

Test(scene, events_sorted_stably_by_time)
{
    const char *text = "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n"
                       "  - {time: 2, unpin: {}}\n"
                       "  - {time: 1, pin: {at: [0.1, 0.1], name: b}}\n"
                       "  - {time: 0.5, grab: {at: [0.5, 0.5]}}\n"
                       "  - {time: 1, pin: {at: [0.2, 0.2], name: a}}\n"
                       "  - {time: 1, release: {}}\n";
    WbScene s;
    WbError e;
    cr_assert_eq(load(text, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_assert_eq(s.n_events, 5);
    cr_expect_eq(s.events[0].type, WB_EVENT_GRAB);
    cr_expect_str_eq(s.events[1].u.pin.name, "b");
    cr_expect_str_eq(s.events[2].u.pin.name, "a");
    cr_expect_eq(s.events[3].type, WB_EVENT_RELEASE);
    cr_expect_eq(s.events[4].type, WB_EVENT_UNPIN);
    cr_expect_eq(s.events[4].src_line, 5);
    cr_expect_eq(s.events[4].src_col, 5);
    cr_expect(s.events[0].u.grab.radius.automatic);
    cr_expect(s.events[1].u.pin.radius.automatic);
    wb_scene_free(&s);
}

Test(scene, timeline_rules_allow_what_they_should)
{
    /* Release then grab again; 4 pins, unpin all, 4 more; a reused name
     * after its unpin; a release (null value) written as `release:`. */
    const char *text = "wobble: 1\nkind: photo\nphoto: {image: a.png}\ntimeline:\n"
                       "  - {time: 0, grab: {at: [0.5, 0.5]}}\n"
                       "  - time: 1\n    release:\n"
                       "  - {time: 1, grab: {at: [0.5, 0.5]}}\n"
                       "  - {time: 2, pin: {at: [0.1, 0.1], name: a}}\n"
                       "  - {time: 2, pin: {at: [0.1, 0.1]}}\n"
                       "  - {time: 2, pin: {at: [0.1, 0.1]}}\n"
                       "  - {time: 2, pin: {at: [0.1, 0.1]}}\n"
                       "  - {time: 3, unpin: {}}\n"
                       "  - {time: 4, pin: {at: [0.1, 0.1], name: a}}\n"
                       "  - {time: 5, unpin: {name: a}}\n"
                       "  - {time: 6, pin: {at: [0.1, 0.1], name: a}}\n";
    WbScene s;
    WbError e;
    cr_assert_eq(load(text, NULL, 0, &s, &e), WB_OK, "%d:%d: %s", e.line, e.col, e.msg);
    cr_expect_eq(s.n_events, 11);
    wb_scene_free(&s);
}

Test(scene, good_scenes_load)
{
    static const char *const mine[] = {"scenes/good/full.yaml", "scenes/good/pixels.yaml",
                                       "scenes/good/scene.json"};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++) {
        WbScene s;
        WbError e;
        wb_error_clear(&e);
        cr_expect_eq(wb_scene_load(mine[i], NULL, 0, &s, &e), WB_OK, "%s: %d:%d: %s", mine[i],
                     e.line, e.col, e.msg);
        wb_scene_free(&s);
    }
    /* Every shipped example is a scene a user can render as is. */
    glob_t g;
    int rc = glob("../examples/*.yaml", 0, NULL, &g);
    cr_assert_eq(rc, 0, "no examples found");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        WbScene s;
        WbError e;
        wb_error_clear(&e);
        cr_expect_eq(wb_scene_load(g.gl_pathv[i], NULL, 0, &s, &e), WB_OK, "%s:%d:%d: %s",
                     g.gl_pathv[i], e.line, e.col, e.msg);
        wb_scene_free(&s);
    }
    globfree(&g);
}

Test(scene, json_scene_values)
{
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load("scenes/good/scene.json", NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.seed, 7u);
    cr_expect(s.output.until_settled);
    cr_expect(s.output.transparent);
    cr_expect_eq(s.output.background.a, 0.0);
    cr_expect_eq(s.photo.integrator, WB_INTEGRATOR_EXACT);
    cr_expect_str_eq(s.photo.mask, "scenes/good/img/cat-mask.png");
    cr_assert_eq(s.n_events, 4);
    cr_expect_eq(s.events[2].type, WB_EVENT_RELEASE);   /* same time: file order */
    cr_expect_eq(s.events[3].type, WB_EVENT_UNPIN);
    cr_expect_eq(s.events[1].u.grab.path[0].ease, WB_EASE_LINEAR);
    wb_scene_free(&s);
}

/* ------------------------------------------------------- did you mean */

Test(scene, distance_and_suggestions)
{
    cr_expect_eq(wb_schema_distance("fps", "fps"), 0);
    cr_expect_eq(wb_schema_distance("fsp", "fps"), 1);      /* transposition */
    cr_expect_eq(wb_schema_distance("widht", "width"), 1);
    cr_expect_eq(wb_schema_distance("bounc", "bounce"), 1);
    cr_expect_eq(wb_schema_distance("grd", "grid"), 1);
    cr_expect_eq(wb_schema_distance("kitten", "sitting"), 3);
    static const char *const keys[] = {"width", "height", "fps", "duration", NULL};
    cr_expect_str_eq(wb_schema_suggest("heigth", keys), "height");
    cr_expect_str_eq(wb_schema_suggest("dur", keys), "duration");
    cr_expect_null(wb_schema_suggest("colour", keys));
    cr_expect_null(wb_schema_suggest("d", keys));
}

/* ------------------------------------------------------------ robustness */

/* Deterministic mutations of a full scene (byte flips, cuts, duplicated
 * spans, YAML punctuation): every load either succeeds or fails with
 * WB_E_INPUT and a message — never a crash, a leak (under ASan) or another
 * status. */
Test(scene, mutated_scenes_fail_cleanly)
{
    FILE *f = fopen("scenes/good/full.yaml", "rb");
    cr_assert(f);
    char base[4096];
    size_t n = fread(base, 1, sizeof base - 1, f);
    fclose(f);
    base[n] = '\0';
    static const char punct[] = ":-[]{},#&*!|>'\"%@` \t\n0.px";
    uint32_t state = 12345u;
    int failed = 0;
    for (int iter = 0; iter < 1500; iter++) {
        char text[8192];
        memcpy(text, base, n + 1);
        size_t len = n;
        int edits = 1 + iter % 4;
        for (int k = 0; k < edits; k++) {
            state = state * 1664525u + 1013904223u;   /* LCG: fixed, portable */
            size_t pos = (state >> 8) % len;
            switch ((state >> 4) % 4) {
            case 0:   /* replace a byte with YAML punctuation */
                text[pos] = punct[(state >> 20) % (sizeof punct - 1)];
                break;
            case 1: { /* cut a span */
                size_t span = 1 + (state >> 24) % 12;
                if (pos + span > len)
                    span = len - pos;
                memmove(text + pos, text + pos + span, len - pos - span + 1);
                len -= span;
                break;
            }
            case 2: { /* duplicate a span */
                size_t span = 1 + (state >> 24) % 40;
                if (pos + span > len)
                    span = len - pos;
                if (len + span < sizeof text - 1) {
                    memmove(text + pos + span, text + pos, len - pos + 1);
                    len += span;
                }
                break;
            }
            default:  /* flip a bit, keep it a non-NUL byte */
                text[pos] = (char)(text[pos] ^ (1 << ((state >> 16) % 7)));
                if (!text[pos])
                    text[pos] = ' ';
                break;
            }
            if (len == 0)
                break;
        }
        WbScene s;
        WbError e;
        wb_error_clear(&e);
        WbStatus st = wb_scene_load_string("m.yaml", text, NULL, 0, &s, &e);
        cr_assert(st == WB_OK || st == WB_E_INPUT, "iteration %d: status %d (%s)\n%s", iter, st,
                  e.msg, text);
        if (st == WB_OK) {
            wb_scene_free(&s);
        } else {
            failed++;
            cr_assert(e.msg[0], "iteration %d: empty message", iter);
        }
    }
    cr_expect_gt(failed, 100);
}

/* The scene's fabric table carries the solver's presets as the shortest
 * decimals of their floats: the same doubles the solver's values round to. */
Test(scene, fabric_values_equal_the_solver_presets)
{
    for (int id = 0; id < WB_FABRIC_COUNT; id++) {
        WbClothSceneDef c;
        wb_cloth_scene_default(&c);
        wb_cloth_fabric_apply(&c, (WbClothFabricKind)id);
        WbFabric f = wb_fabric_preset((WbFabricId)id);
        const double got[6] = {c.stiffness, c.weight, c.damping, c.bend_stiffness, c.friction,
                               c.wind_response};
        const float want[6] = {f.stiffness, f.weight, f.damping, f.bend_stiffness, f.friction,
                               f.wind_response};
        for (int k = 0; k < 6; k++)
            cr_expect_eq(got[k], round((double)want[k] * 1e6) / 1e6, "%s parameter %d: %.17g",
                         f.name, k, got[k]);
    }
}
