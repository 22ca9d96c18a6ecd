/* test_state.c — the state file container: CRC-32, fields saved and loaded
 * back bit for bit, and every kind of damage refused. */
#define TMPDIR_TEMPLATE "/tmp/wb_state_XXXXXX"
#include "tmpdir.h"

#include <string.h>

#include "io/state.h"

TestSuite(state, .init = make_dir, .fini = remove_dir);

Test(state, crc32_matches_the_standard_check_value)
{
    cr_assert_eq(wb_crc32(0, "123456789", 9), 0xcbf43926u);
    /* continuing over pieces is the same as one pass */
    cr_assert_eq(wb_crc32(wb_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

typedef struct Toy {
    float x[5];
    double t;
    int64_t step;
    bool on;
    uint8_t name[4];
} Toy;

static void toy_fields(Toy *t, WbFields *f)
{
    wb_fields_f32(f, "toy.x", t->x, 5);
    wb_fields_f64(f, "toy.t", &t->t, 1);
    wb_fields_i64(f, "toy.step", &t->step, 1);
    wb_fields_bool(f, "toy.on", &t->on);
    wb_fields_u8(f, "toy.name", t->name, 4);
}

static void save(Toy *t, WbStateBuf *b)
{
    WbStateSaver s;
    wb_state_saver_init(&s, b);
    toy_fields(t, &s.f);
    cr_assert(!b->failed);
}

Test(state, fields_round_trip_and_mismatches_are_named)
{
    Toy a = {{1.5f, -0.0f, 3e-38f, 7, 1e30f}, 0.1, 123456789012345, true, "abc"}, b;
    WbStateBuf buf = {0};
    save(&a, &buf);
    memset(&b, 0xff, sizeof b);
    WbStateLoader l;
    wb_state_loader_init(&l, &buf);
    toy_fields(&b, &l.f);
    cr_assert(!buf.failed, "%s", buf.what);
    cr_assert_eq(buf.pos, buf.len);
    cr_assert(memcmp(a.x, b.x, sizeof a.x) == 0 && a.t == b.t && a.step == b.step && b.on);
    cr_assert_str_eq((char *)b.name, "abc");
    /* a field the reader expects under another name */
    wb_state_loader_init(&l, &buf);
    wb_fields_f32(&l.f, "toy.y", b.x, 5);
    cr_assert(buf.failed);
    cr_assert(strstr(buf.what, "toy.y") && strstr(buf.what, "toy.x"), "%s", buf.what);
    /* another count */
    wb_state_loader_init(&l, &buf);
    wb_fields_f32(&l.f, "toy.x", b.x, 4);
    cr_assert(buf.failed && strstr(buf.what, "5 elements"), "%s", buf.what);
    /* cut short */
    buf.len -= 2;
    wb_state_loader_init(&l, &buf);
    toy_fields(&b, &l.f);
    cr_assert(buf.failed);
    wb_state_buf_free(&buf);
}

static void write_file(const char *path, int n)
{
    WbStateInfo info = {.kind = 2, .scene_hash = 42, .version_hash = wb_state_version_hash(),
                        .fps = 30, .frames = 100, .every = 10};
    WbStateWriter *w;
    WbError err;
    cr_assert_eq(wb_state_writer_open(&w, path, &info, &err), WB_OK);
    for (int i = 0; i < n; i++) {
        Toy t = {{(float)i, 0, 0, 0, 0}, i * 0.5, i * 8, i & 1, "x"};
        WbStateBuf b = {0};
        save(&t, &b);
        cr_assert_eq(wb_state_writer_add(w, 10 * i, 8 * i, &b, &err), WB_OK);
        wb_state_buf_free(&b);
    }
    cr_assert_eq(wb_state_writer_finish(w, &err), WB_OK, "%s", err.msg);
}

Test(state, file_round_trip_and_damage)
{
    char path[300], bad[300];
    snprintf(path, sizeof path, "%s/a.state", dir);
    snprintf(bad, sizeof bad, "%s/b.state", dir);
    write_file(path, 4);
    WbStateReader *r;
    WbError err;
    cr_assert_eq(wb_state_reader_open(&r, path, &err), WB_OK, "%s", err.msg);
    const WbStateInfo *in = wb_state_reader_info(r);
    cr_assert(in->kind == 2 && in->scene_hash == 42 && in->snapshots == 4 && in->fps == 30);
    cr_assert_eq(wb_state_reader_find(r, 25), 2);
    cr_assert_eq(wb_state_reader_find(r, 30), 3);
    WbStateBuf b = {0};
    int64_t step;
    cr_assert_eq(wb_state_reader_load(r, 2, &step, &b, &err), WB_OK);
    Toy t;
    WbStateLoader l;
    wb_state_loader_init(&l, &b);
    toy_fields(&t, &l.f);
    cr_assert(step == 16 && t.x[0] == 2.0f && t.t == 1.0 && !b.failed);
    wb_state_reader_close(r);

    /* every byte flipped in turn is caught: header, snapshots, index, trailer */
    FILE *f = fopen(path, "rb");
    unsigned char data[4096];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    for (size_t i = 0; i < n; i += 7) {
        data[i] ^= 0x10;
        f = fopen(bad, "wb");
        fwrite(data, 1, n, f);
        fclose(f);
        data[i] ^= 0x10;
        WbStatus st = wb_state_reader_open(&r, bad, &err);
        if (!st) {
            for (uint32_t k = 0; !st && k < 4; k++)
                st = wb_state_reader_load(r, k, &step, &b, &err);
            wb_state_reader_close(r);
        }
        cr_assert_eq(st, WB_E_INPUT, "byte %zu flipped was not noticed", i);
        cr_assert(strstr(err.msg, "b.state"), "%s", err.msg);
    }
    wb_state_buf_free(&b);
}
