/* tlv: reads a small binary key-value store kept as type-length-value
 * records and prints what it holds: its title, its entries (key, size and
 * an 8-bit sum of the data) and the longest entry.
 * Usage: tlv FILE
 *
 * FILE starts with the 4 bytes "TLV\1". Then come records, each a type
 * byte, a 16-bit big-endian length and that many bytes of value:
 *   01 TITLE    the title, up to 48 bytes of text
 *   02 ENTRY    a key length K (1 byte, 1..31), K bytes of key, the data
 *   03 DELETE   the key of an entry to remove
 *   04 COMMENT  ignored
 *   05 END      stops reading (optional)
 * A record with an unknown type, a bad length or a bad value is reported
 * on stderr and skipped; a truncated record ends the file.
 *
 * Planted bugs:
 *  - length_ok() lets a TITLE be TITLE_MAX bytes long ("<=" where "<" was
 *    meant), and set_title() then writes the terminating NUL one byte
 *    past the heap buffer (ASan: heap-buffer-overflow, WRITE of size 1;
 *    a plain build writes into malloc's slack and goes on). Only the
 *    length 48 (0x0030) does it. Input (hex):
 *      54 4c 56 01  01 00 30  then 48 bytes of text ("A" * 48)
 *  - DELETE frees the entry but leaves "longest" pointing at it when it
 *    was the longest one; the summary (or the next ENTRY, which compares
 *    its size with it) reads freed memory (ASan: heap-use-after-free,
 *    READ of size 8). Input (hex):
 *      54 4c 56 01  02 00 04 01 61 78 79  03 00 01 61
 *    (entry "a" holding "xy", then delete "a").
 *
 * Exit status: 0 when every record was read, 1 otherwise or when FILE
 * cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_MAX 48
#define KEY_MAX 32
#define MAX_ENTRIES 64
#define FILE_MAX 65536

enum { T_TITLE = 1, T_ENTRY, T_DELETE, T_COMMENT, T_END };

struct entry {
    size_t len;
    unsigned char *data;
    char key[KEY_MAX];
};

static struct entry *entries[MAX_ENTRIES];
static int nentries;
static struct entry *longest;
static char *title;
static long offset;

static void complain(const char *msg)
{
    fprintf(stderr, "tlv: record at offset %ld: %s\n", offset, msg);
}

static int length_ok(int type, unsigned len)
{
    switch (type) {
    case T_TITLE:
        return len <= TITLE_MAX;
    case T_ENTRY:
        return len >= 2;
    case T_DELETE:
        return len >= 1 && len < KEY_MAX;
    case T_COMMENT:
    case T_END:
        return 1;
    }
    return 0;
}

static void set_title(const unsigned char *v, unsigned len)
{
    memcpy(title, v, len);
    title[len] = '\0';
}

static int find(const char *key)
{
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i]->key, key) == 0)
            return i;
    return -1;
}

static int add_entry(const unsigned char *v, unsigned len)
{
    unsigned klen = v[0];
    if (klen == 0 || klen >= KEY_MAX || 1 + klen > len) {
        complain("bad key length");
        return 0;
    }
    char key[KEY_MAX];
    memcpy(key, v + 1, klen);
    key[klen] = '\0';
    if (strlen(key) != klen || find(key) >= 0) {
        complain("bad or duplicate key");
        return 0;
    }
    if (nentries == MAX_ENTRIES) {
        complain("too many entries");
        return 0;
    }
    struct entry *e = malloc(sizeof *e);
    if (!e)
        return 0;
    e->len = len - 1 - klen;
    e->data = malloc(e->len ? e->len : 1);
    if (!e->data) {
        free(e);
        return 0;
    }
    memcpy(e->data, v + 1 + klen, e->len);
    memcpy(e->key, key, klen + 1);
    entries[nentries++] = e;
    if (!longest || e->len > longest->len)
        longest = e;
    return 1;
}

static int delete_entry(const unsigned char *v, unsigned len)
{
    char key[KEY_MAX];
    memcpy(key, v, len);
    key[len] = '\0';
    int i = find(key);
    if (i < 0) {
        complain("no such key");
        return 0;
    }
    free(entries[i]->data);
    free(entries[i]);
    memmove(entries + i, entries + i + 1, (size_t)(nentries - i - 1) * sizeof entries[0]);
    nentries--;
    return 1;
}

static unsigned sum8(const struct entry *e)
{
    unsigned char s = 0;
    for (size_t i = 0; i < e->len; i++)
        s += e->data[i];
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tlv FILE\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    unsigned char *buf = malloc(FILE_MAX);
    title = malloc(TITLE_MAX);
    if (!buf || !title)
        return 1;
    size_t size = fread(buf, 1, FILE_MAX, f);
    fclose(f);
    title[0] = '\0';
    if (size < 4 || memcmp(buf, "TLV\1", 4) != 0) {
        fprintf(stderr, "tlv: %s: not a TLV file\n", argv[1]);
        free(title);
        free(buf);
        return 1;
    }
    int errors = 0, records = 0;
    size_t pos = 4;
    while (pos < size) {
        offset = (long)pos;
        if (size - pos < 3) {
            complain("truncated header");
            errors++;
            break;
        }
        int type = buf[pos];
        unsigned len = (unsigned)buf[pos + 1] << 8 | buf[pos + 2];
        const unsigned char *v = buf + pos + 3;
        if (len > size - pos - 3) {
            complain("truncated value");
            errors++;
            break;
        }
        pos += 3 + (size_t)len;
        if (!length_ok(type, len)) {
            complain("bad type or length");
            errors++;
            continue;
        }
        int ok = 1;
        if (type == T_TITLE)
            set_title(v, len);
        else if (type == T_ENTRY)
            ok = add_entry(v, len);
        else if (type == T_DELETE)
            ok = delete_entry(v, len);
        else if (type == T_END)
            break;
        errors += !ok;
        records += ok;
    }
    printf("title: %s\n", title[0] ? title : "(none)");
    printf("%d records, %d entries\n", records, nentries);
    for (int i = 0; i < nentries; i++)
        printf("  %-20s %6zu bytes  sum %02x\n", entries[i]->key, entries[i]->len, sum8(entries[i]));
    if (longest)
        printf("longest: %s (%zu bytes)\n", longest->key, longest->len);
    for (int i = 0; i < nentries; i++) {
        free(entries[i]->data);
        free(entries[i]);
    }
    free(title);
    free(buf);
    return errors != 0;
}
