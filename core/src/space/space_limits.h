/* The limits of a tuning space, in one table.
 *
 * Each is enforced where a space loads (spaceini.c), with the file, the line and a fix, so
 * that nothing later meets a space larger than it was made for: the arrays of a config's
 * names (the tuner, the worker protocol, the lookup's kernels, re-evaluation), NVRTC's
 * option list, the strategies' 16-bit level indices, and the memory the enumeration takes.
 * Every other place that bounds these quantities uses the names below, never a number of
 * its own.
 *
 *   limit                  value      what it bounds
 *   CUTUNE_MAX_PARAMS      48         parameters of a space (the largest shipped: 13)
 *   CUTUNE_MAX_VALUES      65535      values of one parameter (a level is a uint16_t)
 *   CUTUNE_MAX_POINTS      10^7       points of the cartesian product, before constraints
 *   CUTUNE_MAX_CELLS       2^25       points x parameters: the int64 values enumerated
 *                                     when every point is valid (256 MiB); the largest
 *                                     shipped space has 6.5 x 10^6
 *   CUTUNE_MAX_LINE        1024       characters of a line of a space file (longer
 *                                     lists continue on indented lines)
 *   CUTUNE_NAME_MAX        64         bytes of a name with its NUL (space.h)
 */
#ifndef CUTUNE_SPACE_LIMITS_H
#define CUTUNE_SPACE_LIMITS_H

#define CUTUNE_MAX_PARAMS 48
#define CUTUNE_MAX_VALUES 65535
#define CUTUNE_MAX_POINTS 10000000ULL
#define CUTUNE_MAX_CELLS (1ULL << 25)
#define CUTUNE_MAX_LINE 1024

/* A limit as a string literal, for messages: CUTUNE_STR(CUTUNE_MAX_PARAMS) is "48". */
#define CUTUNE_STR_(x) #x
#define CUTUNE_STR(x) CUTUNE_STR_(x)

#endif
