/* hash.h — FNV-1a (64-bit) over bytes: the per-frame state hash every kind
 * reports in --stats, so two machines can prove they agree.  Not for
 * security; stable across runs, builds and thread counts. */
#ifndef WB_HASH_H
#define WB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WB_FNV1A_SEED 0xcbf29ce484222325ull

/* Continue hash h over n bytes at data (start with WB_FNV1A_SEED). */
static inline uint64_t wb_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
