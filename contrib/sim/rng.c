/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  rng.c - splitmix64 seeding, xoshiro256** drawing, polar-method normals.
 *  See rng.h.  The constants are the published ones.
\*****************************************************************************/

#include <math.h>

#include "rng.h"

extern uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

extern void sim_rng_init(sim_rng_t *r, uint64_t seed, uint64_t key,
			 uint64_t stream)
{
	uint64_t x = seed;
	int i;

	/* Fold key and stream in through the mixer, so that nearby keys
	 * give unrelated states. */
	x = sim_splitmix64(&x) ^ key;
	x = sim_splitmix64(&x) ^ (stream * 0xd1b54a32d192ed03ULL);
	for (i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;	/* the all-zero state is a fixed point */
}

static inline uint64_t _rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

extern uint64_t sim_rng_next(sim_rng_t *r)
{
	uint64_t *s = r->s;
	uint64_t result = _rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = _rotl(s[3], 45);
	return result;
}

extern double sim_rng_uniform(sim_rng_t *r)
{
	return (double) (sim_rng_next(r) >> 11) * 0x1.0p-53;
}

extern double sim_rng_normal(sim_rng_t *r, double mean, double sd)
{
	double u, v, s;

	do {
		u = 2.0 * sim_rng_uniform(r) - 1.0;
		v = 2.0 * sim_rng_uniform(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	/* The second variate (v * ...) is dropped: one stream, one value,
	 * so that the draws of a quantity do not depend on how many values
	 * an earlier resampling used. */
	return mean + sd * u * sqrt(-2.0 * log(s) / s);
}
