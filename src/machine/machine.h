/* A modelled machine: what the cost model and the simulator know about a
 * computer.  It comes from a built-in preset (the ARMv8 machines of Gao et al.
 * 2021, Tables I-III), from `muster probe` on this machine, or from a JSON
 * file in the same format.  Not installed: used by the muster command and the
 * tests.
 *
 * File format ("muster-machine/1"), one JSON object:
 *   format            "muster-machine/1"                       required
 *   name, source      strings                                  optional
 *   cache_line_bytes  integer > 0                              optional, 64
 *   epsilon_ns        local access cost, > 0                   required
 *   contention_ns     c: extra cost per concurrent reader of one line, >= 0
 *                                                              optional, default below
 *   cpus              [N integers]: OS CPU ids, distinct, >= 0  required, N >= 1
 *   latency_ns        [N][N] one-way core-to-core latency; diagonal = epsilon
 *                     (values on the diagonal are ignored and replaced by
 *                     epsilon_ns); off-diagonal > 0          required
 *   layers            [{name, latency_ns, alpha}] ascending latency; every
 *                     off-diagonal pair belongs to the layer whose latency is
 *                     nearest its own.  Absent: derived by clustering the
 *                     matrix, alpha = MUSTER_MACHINE_DEFAULT_ALPHA.  optional
 *   cluster_size      N_c, 1 <= N_c <= N.  Absent: derived: each CPU's
 *                     cluster is itself and the CPUs it shares layer 0 with
 *                     in both directions; N_c is the most common cluster size
 *                     (the smaller on a tie).  Not simply CPU 0's cluster:
 *                     measured matrices are asymmetric and noisy, and CPU 0
 *                     (which takes most interrupts) is the CPU most likely to
 *                     measure oddly.  optional
 *   probe             object written by `muster probe`: round_trip_min_ns and
 *                     round_trip_median_ns ([N][N], diagonal 0: not
 *                     measured), repetitions, round_trips (per sample)  optional
 *   topology          object written by `muster probe` (informational) optional
 * Unknown keys are ignored.
 */
#ifndef MUSTER_MACHINE_MACHINE_H
#define MUSTER_MACHINE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MUSTER_MACHINE_FORMAT "muster-machine/1"
#define MUSTER_MACHINE_MAX_CPUS 4096u
#define MUSTER_MACHINE_MAX_LAYERS 16u
#define MUSTER_MACHINE_NO_LAYER 0xffu
/* The paper gives neither alpha nor c; these defaults are explained in the
 * docs/model.md ("Model parameters"). */
#define MUSTER_MACHINE_DEFAULT_ALPHA 0.1
#define MUSTER_MACHINE_DEFAULT_CONTENTION_NS 1.0
/* Two latencies belong to one layer when they are within this fraction of
 * each other (used when a file or a probe gives no layers). */
#define MUSTER_MACHINE_LAYER_TOLERANCE 0.15

typedef struct muster_layer {
    char name[48];
    double latency_ns; /* representative one-way latency */
    double alpha;      /* invalidation weight per sharer, 0..1 (Gao eq. 3) */
} muster_layer;

typedef struct muster_machine {
    char name[96];
    char source[200];
    unsigned cpus;               /* N */
    int *cpu_ids;                /* N OS CPU ids */
    unsigned cache_line_bytes;
    double epsilon_ns;
    double contention_ns;        /* c */
    double *latency_ns;          /* N*N, row-major; [i*N+i] == epsilon_ns */
    unsigned char *layer_of;     /* N*N; NO_LAYER on the diagonal */
    unsigned layer_count;
    muster_layer layers[MUSTER_MACHINE_MAX_LAYERS];
    unsigned cluster_size;       /* N_c */
    /* From a probe only; NULL otherwise. */
    double *round_trip_min_ns, *round_trip_median_ns; /* N*N */
    unsigned probe_repetitions;  /* K samples per pair */
    unsigned probe_round_trips;  /* R round trips per sample */
} muster_machine;

static inline double muster_machine_latency(const muster_machine *m, unsigned i, unsigned j)
{
    return m->latency_ns[(size_t)i * m->cpus + j];
}

/* The layer a pair belongs to; NULL for i == j. */
static inline const muster_layer *muster_machine_layer(const muster_machine *m, unsigned i, unsigned j)
{
    unsigned char k = m->layer_of[(size_t)i * m->cpus + j];
    return k == MUSTER_MACHINE_NO_LAYER ? NULL : &m->layers[k];
}

/* Allocates an N-CPU machine with every field zeroed (cpu_ids 0..N-1,
 * cache line 64, defaults for c).  0, or -1 when N is 0 or too big or memory
 * runs out. */
int muster_machine_init(muster_machine *m, unsigned cpus);
void muster_machine_free(muster_machine *m);

/* Checks every invariant listed above.  0 when sound; otherwise -1 and a
 * one-line message naming the field and the problem in err. */
int muster_machine_validate(const muster_machine *m, char *err, size_t err_len);

/* Groups the off-diagonal latencies into layers (values within
 * MUSTER_MACHINE_LAYER_TOLERANCE of a layer's smallest member join it; a
 * layer's latency is the median of its members), sets layers (alpha =
 * default) and cluster_size, and then layer_of by
 * muster_machine_assign_layers' nearest-layer rule, so that a derived machine
 * saved and loaded again is the same machine. */
int muster_machine_derive_layers(muster_machine *m);

/* Assigns every pair to the nearest of the given layers (m->layers,
 * m->layer_count already set) and derives cluster_size when it is 0. */
int muster_machine_assign_layers(muster_machine *m);

/* Reads a machine file.  0, or -1 with "PATH: field: problem" in err; m is
 * left empty (nothing half-made) on failure. */
int muster_machine_load(const char *path, muster_machine *m, char *err, size_t err_len);
/* The same from the file's text (size bytes, no terminator needed): 0, or
 * -1 with "field: problem" in err and m left empty. */
int muster_machine_parse(const char *text, size_t size, muster_machine *m, char *err, size_t err_len);

/* Writes m as a muster-machine/1 JSON object (with layers, cluster_size and
 * the probe matrices when present).  In muster_model, not libmuster.  topology_json, when not NULL, is a JSON
 * object written verbatim as "topology".  0 or -1 (errno set). */
int muster_machine_save(const muster_machine *m, FILE *out, const char *topology_json);

/* Built-in machines from Gao et al. 2021: "phytium2000", "thunderx2",
 * "kunpeng920".  0, or -1 with a message listing the known names. */
int muster_machine_preset(const char *name, muster_machine *m, char *err, size_t err_len);
const char *const *muster_machine_preset_names(void); /* NULL-terminated */

/* A bigger machine made of `copies` copies of m joined by a new outermost
 * layer of latency_ns (alpha as m's outermost layer).  For studying P beyond
 * a preset's CPU count. */
int muster_machine_replicate(const muster_machine *m, unsigned copies, double latency_ns,
                             muster_machine *out, char *err, size_t err_len);

#endif
