/* name.h: players' names: what a name may hold, and when two names are the
 * same name to the people who read them. Pure functions over UTF-8 text; the
 * decoder (msg.c) checks names with them, and a room (server/game/) keeps
 * its seats' names apart with proto_name_same.
 *
 * A name is shown alone (seat lists, chat lines), so it may not hold what
 * makes one name pass for another: bidirectional controls (U+202E turns the
 * text around), zero-width and other invisible characters, line breaks. Two
 * names are the same when they are equal once the white space around them is
 * trimmed, variation selectors dropped and letters case-folded (Unicode's
 * simple case folding of Latin, Greek and Cyrillic: "Ann", "ANN", " ann ";
 * "ΣΟΦΙΑ" and "σοφια"). Look-alike letters of different scripts (Latin "a",
 * Cyrillic "а") and names that differ only by Unicode normalisation are not
 * folded together. */
#ifndef CARC_PROTO_NAME_H
#define CARC_PROTO_NAME_H

#include <stddef.h>

/* s (NUL-terminated UTF-8) without the white space around it (ASCII space and
 * Unicode's spaces: U+00A0, U+2000..U+200A, U+3000...), moved in place.
 * Returns the new length. */
size_t proto_name_trim(char *s);

/* 0 when s holds no character a name may not hold; else CARC_E_INVAL with a
 * sentence naming the first one in why (size bytes, always terminated):
 * "must not contain U+202E (a bidirectional control)". Control characters
 * (C0, DEL, C1) are the decoder's own check and pass here. */
int proto_name_check(const char *s, char *why, size_t size);

/* The key two names are compared by (see above) into out, always terminated;
 * folding never makes a text longer, so size = strlen(s) + 1 holds it. */
void proto_name_fold(const char *s, char *out, size_t size);

/* 1 when a and b are the same name to people (equal keys), else 0. */
int proto_name_same(const char *a, const char *b);

#endif
