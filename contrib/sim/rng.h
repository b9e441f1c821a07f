/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  rng.h - a small deterministic random number generator for libra-sim.
 *
 *  The same seed must give byte-identical output on any machine, so the
 *  simulator never uses rand() or the C library's generators.  We use
 *  splitmix64 (Steele, Lea, Flood 2014) to derive a 256-bit state and
 *  xoshiro256** (Blackman and Vigna 2018) to draw from it.
 *
 *  Streams: every random quantity of the workload synthesis is drawn from
 *  its own stream, keyed by (seed, SWF job number, quantity), so that
 *  changing one option (say --hard) never changes the other draws, and a
 *  job keeps its QoS whichever window of the trace is simulated.
 *
 *  Normal variates use Marsaglia's polar method, which needs only log()
 *  and sqrt(): both are correctly rounded in glibc and musl, unlike the
 *  cos() of Box-Muller on some libms.
\*****************************************************************************/

#ifndef LIBRA_SIM_RNG_H
#define LIBRA_SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng {
	uint64_t s[4];
} sim_rng_t;

/* One step of splitmix64: advances *x and returns a mixed value. */
extern uint64_t sim_splitmix64(uint64_t *x);

/* Seed a stream from (seed, key, stream). */
extern void sim_rng_init(sim_rng_t *r, uint64_t seed, uint64_t key,
			 uint64_t stream);

extern uint64_t sim_rng_next(sim_rng_t *r);

/* Uniform in [0, 1), 53 bits. */
extern double sim_rng_uniform(sim_rng_t *r);

/* Normal with the given mean and standard deviation (polar method). */
extern double sim_rng_normal(sim_rng_t *r, double mean, double sd);

#endif /* LIBRA_SIM_RNG_H */
