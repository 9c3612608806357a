/* The commands of `script`, compiled from its text. */
#ifndef SCRIPT_COMMANDS_H
#define SCRIPT_COMMANDS_H

#define MAX_COMMANDS 32

struct program {
    char ops[MAX_COMMANDS];
    int n;
};

/* Compiles `text` into `prog`: 0, or -1 when it has too many commands. */
int compile(const char *text, struct program *prog);
/* Runs `prog` on `line`; prints it at the end unless `quiet`. */
void run(const struct program *prog, char *line, int quiet);

#endif
