/* magic: reads a small record format from the file named on the command
 * line: a 4-byte tag, then commands. A crash hides behind conditions:
 * tag "MGC1", then a line "len N" with N > 200, then a line "copy" makes
 * the program write past a 16-byte buffer into a NULL-guarded pointer and
 * abort (SIGSEGV). Expected: exit 0 for every other input; exit 1 on a bad
 * tag or unreadable file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record {
    char name[16];
    char *payload;
};

static int copy_payload(struct record *r, const char *src, long len) {
    if (len > 200) {
        /* The bug: a length check that logs instead of refusing. */
        r->payload = NULL;
    }
    if (r->payload == NULL && len > 200)
        *(volatile char *)r->payload = src[0]; /* NULL write: SIGSEGV */
    memcpy(r->name, src, len < 15 ? (size_t)len : 15);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: magic FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    char tag[4];
    if (fread(tag, 1, 4, f) != 4 || memcmp(tag, "MGC1", 4) != 0) {
        fprintf(stderr, "bad tag\n");
        fclose(f);
        return 1;
    }
    struct record r = { "", "static" };
    long len = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "len ", 4) == 0) len = strtol(line + 4, NULL, 10);
        else if (strncmp(line, "copy", 4) == 0) copy_payload(&r, line, len);
        else if (strncmp(line, "show", 4) == 0) printf("name=%s len=%ld\n", r.name, len);
    }
    fclose(f);
    return 0;
}
