/* accum: totals an invoice. Each line of FILE is an item or a directive:
 *   NAME QTY PRICE   QTY pieces (0..9999) at PRICE euros each (0 to
 *                    9999.99, with up to two decimals: 3, 3.5, 3.50)
 *   discount P       take P percent (0..100) off the items that follow
 *   vat P            add P percent (0..100) of value-added tax to the total
 * Blank lines and lines starting with '#' are skipped; a bad line is
 * reported on stderr and left out. Prints each item with its amount, then
 * the subtotal, the discount, the tax, the total and the largest item.
 * Usage: accum FILE
 *
 * Planted bug: an item's amount in cents is computed as "qty * cents" in
 * int. Each factor is checked on its own, but 9999 x 999999 is well past
 * INT_MAX: any item worth more than 21474836.47 euros overflows (UBSan:
 * runtime error: signed integer overflow; a plain build goes on with a
 * wrapped amount, here a negative largest item, and exits 0). Input:
 *   crane 2148 9999.99
 * (2148 x 999999 = 2147997852; 2147 pieces still fit.) The totals are
 * kept in long long and do not overflow.
 *
 * Exit status: 0 when every line was good, 1 otherwise or when FILE
 * cannot be read. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QTY 9999
#define MAX_EUROS 9999

static int lineno, errors;

static void bad(const char *what, const char *text)
{
    fprintf(stderr, "accum: line %d: bad %s: %s\n", lineno, what, text);
    errors++;
}

/* Parses a whole number in lo..hi; returns 1 on success. */
static int parse_range(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Parses a price "E", "E.C" or "E.CC" into cents; returns 1 on success. */
static int parse_price(const char *s, int *cents)
{
    char euros[8];
    const char *dot = strchr(s, '.');
    size_t elen = dot ? (size_t)(dot - s) : strlen(s);
    long e, c = 0;
    if (elen == 0 || elen >= sizeof euros)
        return 0;
    memcpy(euros, s, elen);
    euros[elen] = '\0';
    if (!isdigit((unsigned char)euros[0]) || !parse_range(euros, 0, MAX_EUROS, &e))
        return 0;
    if (dot) {
        size_t clen = strlen(dot + 1);
        if (clen < 1 || clen > 2 || !isdigit((unsigned char)dot[1]) || !parse_range(dot + 1, 0, 99, &c))
            return 0;
        if (clen == 1)
            c *= 10;
    }
    *cents = (int)(e * 100 + c);
    return 1;
}

static const char *money(long long cents, char *buf, size_t size)
{
    long long a = cents < 0 ? -cents : cents;
    snprintf(buf, size, "%s%lld.%02lld", cents < 0 ? "-" : "", a / 100, a % 100);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: accum FILE\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[256], name[64], a[32], b[32], m1[32], m2[32];
    long long subtotal = 0, discounted = 0;
    long discount = 0, vat = 0, p;
    int items = 0, largest = 0;
    char largest_name[64] = "";
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int n = sscanf(line, "%63s %31s %31s", name, a, b);
        if (n < 1 || name[0] == '#')
            continue;
        if (n == 2 && strcmp(name, "discount") == 0) {
            if (parse_range(a, 0, 100, &p))
                discount = p;
            else
                bad("discount", a);
            continue;
        }
        if (n == 2 && strcmp(name, "vat") == 0) {
            if (parse_range(a, 0, 100, &p))
                vat = p;
            else
                bad("tax rate", a);
            continue;
        }
        if (n != 3) {
            bad("line", name);
            continue;
        }
        long qty;
        int cents;
        if (!parse_range(a, 0, MAX_QTY, &qty)) {
            bad("quantity", a);
            continue;
        }
        if (!parse_price(b, &cents)) {
            bad("price", b);
            continue;
        }
        int count = (int)qty;
        int amount = count * cents;
        long long off = ((long long)amount * discount + 50) / 100;
        printf("%-20s %4d x %8s = %12s", name, count, money(cents, m1, sizeof m1), money(amount, m2, sizeof m2));
        if (off)
            printf("  (-%s)", money(off, m1, sizeof m1));
        printf("\n");
        subtotal += amount;
        discounted += off;
        if (items == 0 || amount > largest) {
            largest = amount;
            snprintf(largest_name, sizeof largest_name, "%s", name);
        }
        items++;
    }
    fclose(f);
    long long net = subtotal - discounted;
    long long tax = (net * vat + 50) / 100;
    printf("%d items\n", items);
    printf("subtotal %14s\n", money(subtotal, m1, sizeof m1));
    if (discounted)
        printf("discount %14s\n", money(-discounted, m1, sizeof m1));
    if (vat)
        printf("vat %2ld%%  %14s\n", vat, money(tax, m1, sizeof m1));
    printf("total    %14s\n", money(net + tax, m1, sizeof m1));
    if (items)
        printf("largest: %s (%s)\n", largest_name, money(largest, m1, sizeof m1));
    return errors != 0;
}
