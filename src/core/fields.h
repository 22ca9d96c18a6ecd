/* fields.h — naming a simulation's mutable state, one field at a time, so
 * one function can both save and restore it (wobble bake, --state).
 *
 * A kind lists every value that a later step reads: positions, velocities,
 * counters, event cursors, generator streams, caches that change results.
 * Each field is a name, an element type and a count of elements at a
 * pointer.  The visitor either copies them out (saving) or overwrites them
 * (loading, `loading` true); the kind's function is the same either way and
 * fixes derived pointers up afterwards when loading.  Pure: no I/O here.
 */
#ifndef WB_FIELDS_H
#define WB_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum WbFieldType {
    WB_FIELD_U8 = 1,
    WB_FIELD_I32 = 2,
    WB_FIELD_U32 = 3,
    WB_FIELD_I64 = 4,
    WB_FIELD_U64 = 5,
    WB_FIELD_F32 = 6,
    WB_FIELD_F64 = 7,
} WbFieldType;

/* Bytes of one element of type t. */
static inline size_t wb_field_size(WbFieldType t)
{
    switch (t) {
    case WB_FIELD_U8: return 1;
    case WB_FIELD_I32:
    case WB_FIELD_U32:
    case WB_FIELD_F32: return 4;
    case WB_FIELD_I64:
    case WB_FIELD_U64:
    case WB_FIELD_F64: return 8;
    }
    return 0;
}

typedef struct WbFields WbFields;
struct WbFields {
    /* count elements of type t at data; name is a short stable key
     * ("cloth.x").  Errors are the visitor's own (sticky), never the
     * kind's: a kind just lists its fields. */
    void (*visit)(WbFields *f, const char *name, WbFieldType t, void *data, size_t count);
    bool loading;
};

static inline void wb_fields_f32(WbFields *f, const char *name, float *p, size_t n)
{
    f->visit(f, name, WB_FIELD_F32, p, n);
}

static inline void wb_fields_f64(WbFields *f, const char *name, double *p, size_t n)
{
    f->visit(f, name, WB_FIELD_F64, p, n);
}

static inline void wb_fields_i32(WbFields *f, const char *name, int32_t *p, size_t n)
{
    f->visit(f, name, WB_FIELD_I32, p, n);
}

static inline void wb_fields_i64(WbFields *f, const char *name, int64_t *p, size_t n)
{
    f->visit(f, name, WB_FIELD_I64, p, n);
}

static inline void wb_fields_u64(WbFields *f, const char *name, uint64_t *p, size_t n)
{
    f->visit(f, name, WB_FIELD_U64, p, n);
}

static inline void wb_fields_u8(WbFields *f, const char *name, uint8_t *p, size_t n)
{
    f->visit(f, name, WB_FIELD_U8, p, n);
}

/* An int (stored as int32). */
static inline void wb_fields_int(WbFields *f, const char *name, int *p)
{
    int32_t v = (int32_t)*p;
    f->visit(f, name, WB_FIELD_I32, &v, 1);
    *p = (int)v;
}

/* A size_t (stored as uint64). */
static inline void wb_fields_size(WbFields *f, const char *name, size_t *p)
{
    uint64_t v = (uint64_t)*p;
    f->visit(f, name, WB_FIELD_U64, &v, 1);
    *p = (size_t)v;
}

/* A bool (stored as one byte, 0 or 1). */
static inline void wb_fields_bool(WbFields *f, const char *name, bool *p)
{
    uint8_t v = !f->loading && *p ? 1 : 0; /* a load never reads the old value */
    f->visit(f, name, WB_FIELD_U8, &v, 1);
    *p = v != 0;
}

#endif
