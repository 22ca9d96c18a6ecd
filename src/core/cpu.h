/* cpu.h — what vector width this processor runs, probed once.
 *
 * The first call to any function here probes the CPU (thread-safe, once
 * per process) and reads WOBBLE_SIMD.  Every kernel that has wide versions
 * asks here, never the CPU itself, so one variable caps them all:
 *   WOBBLE_SIMD=4   SSE2 only (the x86-64 baseline; other machines: scalar)
 *   WOBBLE_SIMD=8   up to AVX2
 *   WOBBLE_SIMD=16  up to AVX-512 F/BW/DQ (the default: the widest there is)
 * A width the CPU cannot run is capped to the widest it can, so the
 * variable never turns on an instruction the processor lacks.  Every width
 * gives the same bytes; the variable exists to prove that, and to time
 * one width against another.
 */
#ifndef WB_CPU_H
#define WB_CPU_H

#include <stdbool.h>

/* Are there widths 8 and 16 to build and pick (x86-64 only)? */
#if defined(__x86_64__)
#define WB_SIMD_WIDE 1
#else
#define WB_SIMD_WIDE 0
#endif

/* Instruction sets, as flags.  A flag is set only when the CPU (and the OS,
 * for the wide registers) has it and the width in force allows it: AVX2
 * needs width 8, the AVX-512 ones width 16. */
enum {
    WB_CPU_AVX2 = 1u << 0,
    WB_CPU_AVX512F = 1u << 1,
    WB_CPU_AVX512BW = 1u << 2,
    WB_CPU_AVX512DQ = 1u << 3,
};

typedef struct WbCpu {
    int lanes;         /* float lanes of the widest usable width: 4, 8 or 16 */
    unsigned features; /* WB_CPU_* flags, limited by lanes */
} WbCpu;

/* The probe's result (probed on the first call). */
WbCpu wb_cpu(void);

/* True when every flag in `features` is set. */
bool wb_cpu_has(unsigned features);

/* wb_cpu().lanes: the widest usable width, 4, 8 or 16. */
int wb_cpu_lanes(void);

#endif
