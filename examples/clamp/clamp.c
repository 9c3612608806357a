/* clamp: grades an exam. Each line of FILE is a student's result
 * "NAME SCORE" (SCORE a whole number of points, 0..150 with extra credit)
 * or a directive "curve N", which adds N points (-50..50) to every score
 * after it. A score is clamped to 0..100 after the curve. Prints each
 * student with the score and letter grade, then a histogram by tens, the
 * number of each letter, the mean and the best student.
 * Blank lines and lines starting with '#' are skipped; a bad line is
 * reported on stderr and left out.
 * Usage: clamp FILE
 *
 * No planted bug: no input makes this program misbehave. The trap is in
 * its helpers: tally() increments deciles[score / 10] and letter() reads
 * grades[score / 10], so a score above 109 or below -9 writes or reads
 * outside those global arrays (UBSan: runtime error: index 100 out of
 * bounds for type 'int[11]'; ASan alone: global-buffer-overflow when the
 * index lands in the array's redzone, as with letter(-20)). A unit-level
 * tool that calls tally() or letter() directly with a wild argument, say
 * tally(1000) or letter(-20), finds that overflow, but their only caller
 * validates the score (0..150), keeps the curve in -50..50, adds them in
 * long and clamps the sum to 0..100 before calling either: the overflow
 * cannot be reached from any input, and a tool must not report it.
 *
 * Exit status: 0 when every line was good, 1 otherwise or when FILE
 * cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCORE 100
#define MAX_RAW 150
#define MAX_CURVE 50

static int deciles[MAX_SCORE / 10 + 1]; /* 0-9, 10-19, ..., 90-99, 100 */
static const char grades[] = "FFFFFFDCBAA"; /* the letter for each of them */
static int letters[26];
static int lineno, errors;

static void tally(int score)
{
    deciles[score / 10]++;
}

static char letter(int score)
{
    return grades[score / 10];
}

static void bad(const char *what, const char *text)
{
    fprintf(stderr, "clamp: line %d: bad %s: %s\n", lineno, what, text);
    errors++;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno)
        return 0;
    *out = v;
    return 1;
}

static void histogram(void)
{
    for (int i = 0; i <= MAX_SCORE / 10; i++) {
        if (i < MAX_SCORE / 10)
            printf("%3d-%-3d|", i * 10, i * 10 + 9);
        else
            printf("%7d|", MAX_SCORE);
        for (int j = 0; j < deciles[i] && j < 60; j++)
            putchar('#');
        if (deciles[i] > 60)
            printf("... (%d)", deciles[i]);
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: clamp FILE\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[256], name[32], arg[32], best[32] = "";
    long curve = 0, sum = 0;
    int students = 0, top = -1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int n = sscanf(line, "%31s %31s", name, arg);
        if (n < 1 || name[0] == '#')
            continue;
        long v;
        if (n != 2 || !parse_long(arg, &v)) {
            bad("line", name);
            continue;
        }
        if (strcmp(name, "curve") == 0) {
            if (v < -MAX_CURVE || v > MAX_CURVE)
                bad("curve", arg);
            else
                curve = v;
            continue;
        }
        if (v < 0 || v > MAX_RAW) {
            bad("score", arg);
            continue;
        }
        long adjusted = v + curve;
        if (adjusted < 0)
            adjusted = 0;
        if (adjusted > MAX_SCORE)
            adjusted = MAX_SCORE;
        int score = (int)adjusted;
        char g = letter(score);
        tally(score);
        letters[g - 'A']++;
        printf("%-20s %3d  %c\n", name, score, g);
        sum += score;
        students++;
        if (score > top) {
            top = score;
            snprintf(best, sizeof best, "%s", name);
        }
    }
    fclose(f);
    if (students == 0) {
        printf("no students\n");
        return errors != 0;
    }
    histogram();
    printf("grades:");
    for (int i = 0; i < 26; i++)
        if (letters[i])
            printf(" %c %d", 'A' + i, letters[i]);
    printf("\n");
    printf("%d students, mean %.1f, best %s (%d)\n", students, (double)sum / students, best, top);
    return errors != 0;
}
