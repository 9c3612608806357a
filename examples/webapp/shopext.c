/* shopext: the SQL functions of examples/webapp, compiled into the SQLite
 * library the application's Python loads (as SQLITE_EXTRA_INIT, so every
 * connection has them):
 *   highlight(TEXT, TERM)  TEXT with each TERM in it put in brackets
 *   score(TEXT, WEIGHT)    a relevance score of TEXT, 0..999
 *   tags(TEXT)             TEXT's words, lower-cased, sorted, one space apart
 *
 * Planted bugs (none of the seeds triggers one):
 *  - highlight() keeps where each match starts in an array of 8 and checks
 *    the count only after the loop: a TERM found 9 times or more writes
 *    past it, and the check aborts (SIGABRT). Any valid request reaches it
 *    with the right values: "banana bandana cabana" holds 9 'a's,
 *      GET /search?q=&hl=a
 *  - score() takes a shortcut for one 16-bit checksum of TEXT with WEIGHT
 *    7 that skips the clamp to 999, and an assertion aborts: a value only
 *    a solver finds, sent inside a JSON string (escapes and all):
 *      POST /api/score  {"text": <a text whose checksum is 0xfa47: "red\u0001chair">, "weight": 7}
 *  - tags() tags "chair's" as "chair" (the stem ends at an apostrophe),
 *    and asserts that a stem is not empty: a word that starts with an
 *    apostrophe aborts. The application accepts names of letters, digits,
 *    blanks, '_' and '-' only: reachable by calling tags() directly, never
 *    through the application (a false alarm the bridge must filter). */
#include "sqlite3.h"
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MARKS 8
#define MAX_WORDS 16

static int mark_matches(const char *text, const char *term, int *marks) {
  size_t n = strlen(term);
  int count = 0;
  if (n == 0)
    return 0;
  for (const char *p = strstr(text, term); p != NULL; p = strstr(p + n, term))
    marks[count++] = (int)(p - text);
  assert(count <= MAX_MARKS);
  return count;
}

static void highlight(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *text = (const char *)sqlite3_value_text(argv[0]);
  const char *term = (const char *)sqlite3_value_text(argv[1]);
  if (text == NULL || term == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  int marks[MAX_MARKS];
  int count = mark_matches(text, term, marks);
  size_t len = strlen(text), n = strlen(term);
  char *out = sqlite3_malloc64(len + 2 * (size_t)count + 1);
  if (out == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  size_t o = 0, i = 0;
  for (int k = 0; k < count; k++) {
    while (i < (size_t)marks[k])
      out[o++] = text[i++];
    out[o++] = '[';
    memcpy(out + o, text + i, n);
    o += n;
    i += n;
    out[o++] = ']';
  }
  while (i < len)
    out[o++] = text[i++];
  out[o] = 0;
  sqlite3_result_text(ctx, out, (int)o, sqlite3_free);
}

/* A 16-bit checksum of the text: Fletcher's. */
static unsigned checksum(const unsigned char *text, size_t n) {
  unsigned a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + text[i]) % 255;
    b = (b + a) % 255;
  }
  return (b << 8) | a;
}

static int score_text(const unsigned char *text, size_t n, int weight) {
  unsigned sum = checksum(text, n);
  int score = (int)(sum % 100) * (weight + 1);
  if (score > 999)
    score = 999;
  /* A shortcut for one checksum at weight 7, which skips the clamp. */
  if (weight == 7 && sum == 0xfa47)
    score = (int)sum;
  assert(score <= 999);
  return score;
}

static void score(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const unsigned char *text = sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  int weight = sqlite3_value_int(argv[1]);
  if (text == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_int(ctx, score_text(text, (size_t)n, weight));
}

static int by_word(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits `copy` in place at blanks; the words' stems, lower-cased, in
 * `words` (at most MAX_WORDS). */
static int split_words(char *copy, char **words) {
  int count = 0;
  for (char *w = strtok(copy, " \t"); w != NULL && count < MAX_WORDS; w = strtok(NULL, " \t")) {
    for (char *c = w; *c; c++)
      *c = (char)tolower((unsigned char)*c);
    char *apostrophe = strchr(w, '\'');
    if (apostrophe != NULL) {
      assert(apostrophe > w);
      *apostrophe = 0;
    }
    words[count++] = w;
  }
  return count;
}

static void tags(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *text = (const char *)sqlite3_value_text(argv[0]);
  if (text == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  char *copy = sqlite3_mprintf("%s", text);
  if (copy == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  char *words[MAX_WORDS];
  int count = split_words(copy, words);
  qsort(words, (size_t)count, sizeof words[0], by_word);
  sqlite3_str *s = sqlite3_str_new(NULL);
  for (int k = 0; k < count; k++)
    sqlite3_str_appendf(s, k ? " %s" : "%s", words[k]);
  sqlite3_free(copy);
  int len = sqlite3_str_length(s);
  sqlite3_result_text(ctx, sqlite3_str_finish(s), len, sqlite3_free);
}

int shopext_init(sqlite3 *db, const char **err, const void *api);

/* Registers the functions on `db` (an auto-extension: every connection). */
int shopext_init(sqlite3 *db, const char **err, const void *api) {
  (void)err;
  (void)api;
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  sqlite3_create_function(db, "highlight", 2, flags, NULL, highlight, NULL, NULL);
  sqlite3_create_function(db, "score", 2, flags, NULL, score, NULL, NULL);
  sqlite3_create_function(db, "tags", 1, flags, NULL, tags, NULL, NULL);
  return SQLITE_OK;
}

/* SQLITE_EXTRA_INIT: called once, when the library initialises. */
int shopext_register(const char *unused);
int shopext_register(const char *unused) {
  (void)unused;
  return sqlite3_auto_extension((void (*)(void))shopext_init);
}
