/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  vec.h - two doubles at a time, for the policy core's hottest loops.
 *
 *  GCC's vector extensions (clang has them too): on x86-64 one SSE2
 *  instruction works on both lanes, elsewhere the compiler does what the
 *  target allows.  Each lane is an IEEE double operation like the scalar
 *  one, so a loop that forms two terms at once and adds them one by one
 *  in order gives the same sum to the bit (findings B and E in
 *  contrib/bench/findings.md).
\*****************************************************************************/

#ifndef LIBRA_VEC_H
#define LIBRA_VEC_H

#include <string.h>

typedef double libra_v2_t __attribute__((vector_size(16)));

/* what comparing two of them gives: a lane of all ones where true */
typedef __typeof__((libra_v2_t) { 0 } < (libra_v2_t) { 0 }) libra_m2_t;

/* c ? a : b, lane by lane, without a branch */
static inline libra_v2_t libra_v2_pick(libra_m2_t c, libra_v2_t a,
				       libra_v2_t b)
{
	return (libra_v2_t) (((libra_m2_t) a & c) | ((libra_m2_t) b & ~c));
}

/* Both lanes x */
static inline libra_v2_t libra_v2_set(double x)
{
	return (libra_v2_t) { x, x };
}

/* Two doubles from p[0], p[1], without alignment */
static inline libra_v2_t libra_v2_load(const double *p)
{
	libra_v2_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
