/* faults: units the bridge must survive. Reads lines "wait WORD",
 * "peek WORD", "delay N" and "sum A B" from the file named on the
 * command line.
 *  - wait_token reads its word's confirmation from a pipe main set up:
 *    replayed alone, the pipe is gone and it spins for ever (every try
 *    hangs, the unit as carved too);
 *  - peek reads through a pointer, kept in main's view, into memory
 *    mapped by main, which no snapshot holds: replayed alone it crashes
 *    on every try;
 *  - delay spins for ever on a negative count, and so does the whole
 *    program: a lifted input that hangs the system (a true alarm);
 *  - mix receives a value computed from the input, found nowhere in it:
 *    a unit with no parameter.
 * Expected: exit 0, except a hang on "delay" with a negative count; exit
 * 1 when the file cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int confirm_fd = -1;

int wait_token(const char *word) {
    char c = 0;
    while (read(confirm_fd, &c, 1) != 1) {
    } /* the pipe is gone in a replay: spins */
    return (int)strlen(word) + (c == '!');
}

struct view {
    const char *page;
};

int peek(const char *word, const struct view *v) {
    return v->page[0] + (int)strlen(word);
}

long delay(int n) {
    volatile long k = 0;
    while (n < 0 || k < n % 1000) k++; /* negative counts never end */
    return k;
}

int mix(unsigned h) {
    return (int)(h % 7u);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: faults FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 1;
    page[0] = 'p';
    struct view view = {page};
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "wait ", 5) == 0) {
            int p[2];
            if (pipe(p) != 0) return 1;
            confirm_fd = p[0];
            if (write(p[1], "!", 1) != 1) return 1;
            printf("wait %d\n", wait_token(line + 5));
            close(p[0]);
            close(p[1]);
        } else if (strncmp(line, "peek ", 5) == 0) {
            printf("peek %d\n", peek(line + 5, &view));
        } else if (strncmp(line, "delay ", 6) == 0) {
            printf("delay %ld\n", delay(atoi(line + 6)));
        } else if (strncmp(line, "sum ", 4) == 0) {
            unsigned h = 2166136261u;
            for (const char *s = line + 4; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
            printf("sum %d\n", mix(h | 0x80000000u));
        }
    }
    fclose(f);
    return 0;
}
