/* shapes: calls functions whose arguments have the shapes carving must
 * handle: a pointer into the middle of an array, a struct holding pointers,
 * a linked list, a function pointer, a string without NUL, a bitset with
 * zero bytes inside, an array larger than the snapshot budget, and a
 * global changed before the call. The input is a line of numbers; the
 * output is each function's result. Expected: exit 0, no crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { int v; struct node *next; };
struct pair { char *name; int *vals; int n; };

int scale = 1; /* changed by main before the calls */

int sum_list(const struct node *n) {
    int s = 0;
    for (; n; n = n->next) s += n->v * scale;
    return s;
}

int pair_score(const struct pair *p) {
    int s = (int)strlen(p->name);
    for (int i = 0; i < p->n; i++) s += p->vals[i] > 10 ? 2 : 1;
    return s;
}

int mid_sum(const int *p, int before, int after) {
    int s = 0;
    for (int i = -before; i <= after; i++) s += p[i];
    return s;
}

static int twice(int x) { return 2 * x; }
static int negate(int x) { return -x; }
int apply(int (*f)(int), int x) { return f(x) + 1; }

int count_upper(const char *s, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += s[i] >= 'A' && s[i] <= 'Z';
    return c;
}

int bits_set(const unsigned char *bits, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) c += (bits[i] >> b) & 1;
    return c;
}

long big_sum(const long *a, size_t n) {
    long s = 0;
    for (size_t i = 0; i < n; i += 4096) s += a[i];
    return s;
}

int main(void) {
    int nums[8] = {0};
    int k = 0;
    while (k < 8 && scanf("%d", &nums[k]) == 1) k++;
    scale = nums[0] % 3 + 1;

    struct node *head = NULL;
    for (int i = 0; i < k; i++) {
        struct node *n = malloc(sizeof *n);
        n->v = nums[i];
        n->next = head;
        head = n;
    }
    printf("sum_list %d\n", sum_list(head));

    struct pair p = { strdup("pair"), nums, k };
    printf("pair_score %d\n", pair_score(&p));

    printf("mid_sum %d\n", mid_sum(nums + 4, 2, 3));
    printf("apply %d %d\n", apply(nums[1] > 0 ? twice : negate, nums[2]), apply(negate, nums[3]));

    char *raw = malloc(6);
    memcpy(raw, nums[0] > 5 ? "ABcDEf" : "abCdef", 6); /* no NUL */
    printf("count_upper %d\n", count_upper(raw, 6));

    unsigned char *bits = calloc(16, 1);
    bits[3] = (unsigned char)nums[4];
    bits[9] = 0x81;
    printf("bits_set %d\n", bits_set(bits, 16));

    size_t big = (4u << 20) / sizeof(long);
    long *arr = calloc(big, sizeof(long));
    for (size_t i = 0; i < big; i += 4096) arr[i] = (long)i + nums[5];
    printf("big_sum %ld\n", big_sum(arr, big));
    return 0;
}
