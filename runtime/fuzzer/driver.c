/* The driver of a libFuzzer harness built with `carve-clang
 * -fsanitize=fuzzer`, in place of libFuzzer's: a `main` that runs
 * `LLVMFuzzerInitialize` once, then starts the runtime (the fork server,
 * when bridge asks for one, and carving or unit replay when asked), then
 * calls `LLVMFuzzerTestOneInput` on each file named on the command line
 * (every file of a directory), or on standard input without one, as
 * libFuzzer runs a harness to reproduce: `./harness FILE...`. Arguments
 * that start with '-' are libFuzzer's options, and are skipped.
 *
 * The input is handed over in a block of its exact size (a sanitizer sees
 * a read past its end). While carving, the harness's out-of-line copy is
 * called, whose calls the runtime records.
 *
 * Under bridge's fork server a child may run many inputs (persistent
 * mode, runtime/src/persistent.rs): after each run it asks the runtime
 * whether to go on, and reads its file, or standard input from its start,
 * again. The file stays open from one run to the next (bridge rewrites it
 * in place): a run costs a `fstat` and a `pread`, not a `stat`, an open,
 * reads and a close. */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
int __carve_main_entry(int *argc, char ***argv);
int __carve_persistent_next(void);
void *__carve_copy_of(void *fp);
void __carve_on_alloc(void *p, uint64_t size);
void __carve_on_free(void *p);

typedef int (*harness_fn)(const uint8_t *, size_t);
static harness_fn harness = LLVMFuzzerTestOneInput;

/* Runs the harness on `block`, `n` bytes of its own, and frees it. */
static int run_block(uint8_t *block, size_t n) {
  /* Its bounds, for carving (this file is not instrumented, and a
   * sanitizer's malloc is not the runtime's). */
  __carve_on_alloc(block, n);
  harness(block, n);
  __carve_on_free(block);
  free(block);
  return 0;
}

static int run_bytes(const uint8_t *bytes, size_t n) {
  uint8_t *copy = malloc(n ? n : 1);
  if (copy == NULL)
    return 1;
  if (n)
    memcpy(copy, bytes, n);
  return run_block(copy, n);
}

/* The file read last, kept open for the next run of the same path: its
 * path, descriptor, device and inode (a harness that closed it, or put
 * another file in its place, gets it opened again). */
static const char *kept_path;
static int kept_fd = -1;
static struct stat kept_st;

/* Runs the kept file if `path` is it and it is still there: 1 when it ran
 * (its result in *r), 0 when the file must be opened. */
static int run_kept(const char *path, int *r) {
  struct stat st;
  if (kept_fd < 0 || kept_path != path || fstat(kept_fd, &st) != 0 || st.st_dev != kept_st.st_dev ||
      st.st_ino != kept_st.st_ino || !S_ISREG(st.st_mode))
    return 0;
  size_t n = (size_t)st.st_size, got = 0;
  uint8_t *block = malloc(n ? n : 1);
  if (block == NULL)
    return 0;
  while (got < n) {
    ssize_t k = pread(kept_fd, block + got, n - got, (off_t)got);
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  if (got != n) {
    free(block);
    return 0;
  }
  *r = run_block(block, n);
  return 1;
}

/* Keeps `path` open for the next run. */
static void keep(const char *path) {
  if (kept_fd >= 0)
    close(kept_fd);
  kept_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (kept_fd >= 0 && fstat(kept_fd, &kept_st) != 0) {
    close(kept_fd);
    kept_fd = -1;
  }
  kept_path = path;
}

/* The whole of `f`, in a block of its size (NULL on failure). */
static uint8_t *slurp(FILE *f, size_t *n) {
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      uint8_t *more = realloc(buf, cap * 2);
      if (more == NULL) {
        free(buf);
        return NULL;
      }
      buf = more;
      cap *= 2;
    }
  }
  *n = len;
  return buf;
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t n = 0;
  uint8_t *data = slurp(f, &n);
  fclose(f);
  if (data == NULL)
    return 1;
  int r = run_bytes(data, n);
  free(data);
  return r;
}

static int run_path(const char *path, int again) {
  int r;
  if (again && run_kept(path, &r))
    return r;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    r = run_file(path);
    if (again)
      keep(path);
    return r;
  }
  DIR *d = opendir(path);
  if (d == NULL)
    return 1;
  struct dirent *e;
  r = 0;
  char full[4096];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
      r |= run_file(full);
  }
  closedir(d);
  return r;
}

/* The arguments that name files (the rest, from '-', are libFuzzer's
 * options). */
static int named_files(int argc, char **argv) {
  int files = 0;
  for (int i = 1; i < argc; i++)
    files += argv[i][0] != '-';
  return files;
}

/* One run: every file named, or standard input without one. `again`:
 * the run of a persistent child, which keeps one named file open (the
 * first run opens it, as any). */
static int run_all(int argc, char **argv, int again) {
  int files = named_files(argc, argv), r = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-')
      continue;
    r |= run_path(argv[i], again && files == 1);
  }
  if (files == 0) {
    size_t n = 0;
    uint8_t *data = slurp(stdin, &n);
    if (data == NULL)
      return 1;
    r = run_bytes(data, n);
    free(data);
  }
  return r;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  if (__carve_main_entry(&argc, &argv))
    harness = (harness_fn)__carve_copy_of((void *)LLVMFuzzerTestOneInput);
  int r = run_all(argc, argv, 0);
  while (__carve_persistent_next()) {
    /* The client rewrote the input in place: a named file is read again,
     * or standard input from its start, its end of file forgotten. */
    if (named_files(argc, argv) == 0)
      rewind(stdin);
    r = run_all(argc, argv, 1);
  }
  return r;
}
