/* Names a variant file may use (names.c). */
#ifndef CUTUNE_REGISTRY_NAMES_H
#define CUTUNE_REGISTRY_NAMES_H


/* 1 when s is a name: letters, digits and '_', not empty. */
int cutune_is_name(const char *s);
/* 1 when s is a C++ identifier that may name a kernel: a name that does not begin with a
 * digit and is not a keyword. */
int cutune_is_identifier(const char *s);

#endif
