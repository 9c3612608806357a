/* inlined: an Intel HEX loader. Reads the records of an Intel HEX file
 * (":LLAAAATT<data>CC", one a line) into a 64 KiB image and prints what
 * it loaded: the number of records, the address range, the entry point
 * and a 16-bit sum of the image.
 * Usage: inlined [FILE]   (standard input without FILE)
 *
 * Record types: 00 data, 01 end of file, 02 extended segment address,
 * 03 start segment address, 04 extended linear address, 05 start linear
 * address. A record with a bad shape or checksum is reported on stderr
 * and skipped; the exit status is then 1.
 *
 * Planted bug: store() checks "addr + n > sizeof image" in 32 bits. With
 * the extended linear address 0xFFFF, a data record whose offset plus
 * length reaches 0x10000 makes the sum wrap around to a small number; the
 * assertion that the address lies in the image fails (SIGABRT; built with
 * NDEBUG, the copy lands 4 GiB past the image: SIGSEGV). Input:
 *   :02000004FFFFFC
 *   :04FFFC0001020304F7
 * No other base wraps: 0x0001 to 0xFFFE put the data past the image, and
 * an extended segment address reaches at most 0xFFFF0 + 0xFFFF.
 *
 * Exit status: 0 when every record loaded, 1 otherwise or when FILE
 * cannot be read. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned char image[0x10000];
static uint32_t lowest = UINT32_MAX, highest;

static int hexdigit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the hex digits of s into bytes; returns how many, or -1. */
static int decode(const char *s, unsigned char *out, size_t max)
{
    size_t n = 0;
    while (s[0] && s[0] != '\n' && s[0] != '\r') {
        int hi = hexdigit(s[0]), lo = hi < 0 ? -1 : hexdigit(s[1]);
        if (lo < 0 || n == max)
            return -1;
        out[n++] = (unsigned char)(hi << 4 | lo);
        s += 2;
    }
    return (int)n;
}

static int checksum_ok(const unsigned char *rec, int n)
{
    unsigned char sum = 0;
    for (int i = 0; i < n; i++)
        sum += rec[i];
    return sum == 0;
}

static int store(uint32_t addr, const unsigned char *data, unsigned n)
{
    if (addr + n > sizeof image)
        return 0;
    assert(addr < sizeof image);
    memcpy(image + addr, data, n);
    if (addr < lowest)
        lowest = addr;
    if (addr + n > highest)
        highest = addr + n;
    return 1;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[600];
    unsigned char rec[260];
    uint32_t base = 0, entry = 0;
    int lineno = 0, records = 0, errors = 0, have_entry = 0, done = 0;
    while (!done && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0')
            continue;
        int n = line[0] == ':' ? decode(line + 1, rec, sizeof rec) : -1;
        if (n < 5 || n != rec[0] + 5) {
            fprintf(stderr, "inlined: line %d: not a record\n", lineno);
            errors++;
            continue;
        }
        if (!checksum_ok(rec, n)) {
            fprintf(stderr, "inlined: line %d: bad checksum\n", lineno);
            errors++;
            continue;
        }
        unsigned count = rec[0], offset = (unsigned)rec[1] << 8 | rec[2];
        const unsigned char *data = rec + 4;
        int ok = 1;
        switch (rec[3]) {
        case 0x00:
            ok = store(base + offset, data, count);
            break;
        case 0x01:
            done = 1;
            break;
        case 0x02:
        case 0x04:
            ok = count == 2;
            if (ok)
                base = ((uint32_t)data[0] << 8 | data[1]) << (rec[3] == 0x02 ? 4 : 16);
            break;
        case 0x03:
        case 0x05:
            ok = count == 4;
            if (ok) {
                entry = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
                have_entry = 1;
            }
            break;
        default:
            ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "inlined: line %d: bad record of type %02x\n", lineno, rec[3]);
            errors++;
            continue;
        }
        records++;
    }
    if (f != stdin)
        fclose(f);
    if (!done)
        fprintf(stderr, "inlined: no end-of-file record\n");
    unsigned sum16 = 0;
    for (size_t i = 0; i < sizeof image; i++)
        sum16 = (sum16 + image[i]) & 0xffff;
    printf("%d records\n", records);
    if (highest > 0)
        printf("data 0x%04x..0x%04x\n", lowest, highest - 1);
    if (have_entry)
        printf("entry 0x%08x\n", entry);
    printf("sum 0x%04x\n", sum16);
    return errors || !done;
}
