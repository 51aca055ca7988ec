/* pg_util.h: one value read from the test's PostgreSQL with psql
 * ($CARC_PG_URL, tests/pg.sh), not through the code under test. */
#ifndef CARC_PG_UTIL_H
#define CARC_PG_UTIL_H

#include <stddef.h>

/* The first line psql prints for query q, into out (size bytes, NUL-terminated,
 * "" for no row). While psql has not answered, wait(arg) runs (a test whose
 * nodes must keep running passes its loop; NULL: block in read). psql failing
 * fails the running test. */
void pgu_query(const char *q, char *out, size_t size, void (*wait)(void *), void *arg);

#endif
