/* hexdump: builds a 256-byte memory image from a patch file and prints it
 * as a hex dump, skipping rows that are all zero.
 * Usage: hexdump [FILE]   (standard input without FILE)
 *
 * Each line of FILE is a record of blank-separated KEY=VALUE tokens,
 * numbers in hex (with or without 0x):
 *   addr=0x10 len=0x8 fill=0xaa       fill len bytes at addr
 *   addr=0x40 data=de:ad:be:ef        write bytes at addr
 *   addr=0x20 len=4 fill=1 align=4    refuse addr when it is not a multiple of align
 * Text after '#' is a comment. A bad record is reported on stderr and
 * skipped.
 *
 * Planted bugs:
 *  - the range check "addr + len > IMAGE_SIZE" wraps around for a length
 *    close to 2^64, and the fill runs off the end of memory (SIGSEGV).
 *    Input: "addr=0x10 len=0xfffffffffffffff0 fill=1\n".
 *  - an empty data list ("data=" or "data=::") makes strtok_r return
 *    NULL, which is parsed as the first byte (SIGSEGV).
 *    Input: "addr=0 data=\n".
 *  - align=0 divides by zero (SIGFPE). Input: "addr=8 len=1 fill=1 align=0\n".
 *
 * Exit status: 0 after the dump, 1 when FILE cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_SIZE 256
#define MAX_DATA 32

static unsigned char image[IMAGE_SIZE];
static int lineno;

struct record {
    unsigned long addr, len, align;
    int fill;
    unsigned char data[MAX_DATA];
    size_t ndata;
    int have_addr, have_len, have_data;
};

static int parse_hex(const char *key, const char *val, unsigned long *out)
{
    char *end;
    *out = strtoul(val, &end, 16);
    if (end == val || *end != '\0') {
        fprintf(stderr, "hexdump: line %d: %s: not a hex number: %s\n", lineno, key, val);
        return 0;
    }
    return 1;
}

static int parse_data(struct record *r, char *val)
{
    char *save, *byte = strtok_r(val, ":", &save);
    r->ndata = 0;
    do {
        unsigned long b;
        if (!parse_hex("data", byte, &b))
            return 0;
        if (b > 0xff || r->ndata == MAX_DATA) {
            fprintf(stderr, "hexdump: line %d: bad data byte %s\n", lineno, byte);
            return 0;
        }
        r->data[r->ndata++] = (unsigned char)b;
    } while ((byte = strtok_r(NULL, ":", &save)));
    r->have_data = 1;
    return 1;
}

static int parse_token(struct record *r, char *tok)
{
    char *eq = strchr(tok, '=');
    if (!eq) {
        fprintf(stderr, "hexdump: line %d: expected KEY=VALUE: %s\n", lineno, tok);
        return 0;
    }
    *eq = '\0';
    char *val = eq + 1;
    unsigned long v;
    if (strcmp(tok, "addr") == 0) {
        r->have_addr = 1;
        return parse_hex(tok, val, &r->addr);
    }
    if (strcmp(tok, "len") == 0) {
        r->have_len = 1;
        return parse_hex(tok, val, &r->len);
    }
    if (strcmp(tok, "align") == 0)
        return parse_hex(tok, val, &r->align);
    if (strcmp(tok, "fill") == 0) {
        if (!parse_hex(tok, val, &v))
            return 0;
        r->fill = (int)(v & 0xff);
        return 1;
    }
    if (strcmp(tok, "data") == 0)
        return parse_data(r, val);
    fprintf(stderr, "hexdump: line %d: unknown key %s\n", lineno, tok);
    return 0;
}

static void apply(const struct record *r)
{
    if (!r->have_addr) {
        fprintf(stderr, "hexdump: line %d: no addr\n", lineno);
        return;
    }
    if (r->addr % r->align != 0) {
        fprintf(stderr, "hexdump: line %d: addr 0x%lx is not aligned\n", lineno, r->addr);
        return;
    }
    unsigned long len = r->have_data ? r->ndata : r->have_len ? r->len : 1;
    if (r->addr + len > IMAGE_SIZE) {
        fprintf(stderr, "hexdump: line %d: 0x%lx bytes at 0x%lx do not fit\n", lineno, len, r->addr);
        return;
    }
    if (r->have_data)
        memcpy(image + r->addr, r->data, r->ndata);
    else
        memset(image + r->addr, r->fill, len);
}

static void dump(void)
{
    for (size_t row = 0; row < IMAGE_SIZE; row += 16) {
        size_t i;
        for (i = 0; i < 16 && image[row + i] == 0; i++)
            ;
        if (i == 16)
            continue;
        printf("%08zx ", row);
        for (i = 0; i < 16; i++)
            printf("%s%02x", i == 8 ? "  " : " ", image[row + i]);
        printf("  |");
        for (i = 0; i < 16; i++) {
            unsigned char c = image[row + i];
            putchar(c >= 0x20 && c < 0x7f ? c : '.');
        }
        printf("|\n");
    }
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        struct record r = {.align = 1};
        char *save, *tok = strtok_r(line, " \t\r\n", &save);
        if (!tok)
            continue;
        int ok = 1;
        for (; tok && ok; tok = strtok_r(NULL, " \t\r\n", &save))
            ok = parse_token(&r, tok);
        if (ok)
            apply(&r);
    }
    if (f != stdin)
        fclose(f);
    dump();
    return 0;
}
