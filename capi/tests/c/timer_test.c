/* The C API against its header: capi/tests/fortran.rs compiles this with
 * cc, links it with libprofparse_timer (static and shared) and runs it as
 *   timer_test DOC_EXACT_GOLDEN
 * Exit 0 when every check holds; otherwise the failed check on stderr. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profparse_timer.h"

static int failures = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            failures++;                                                      \
        }                                                                    \
    } while (0)

static const char *last_error(void) {
    static char buf[512];
    pp_timer_last_error(buf, sizeof buf);
    return buf;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return text;
}

/* The documentation's tree with its sample times (binary32, as Fortran). */
static int deserialize_doc(pp_timer_tree *t) {
    const int tree[] = {1, 2, 2, 3, 4, 4, 3, 1, 5, 6, 6, 7, 7, 8, 8, 5};
    const char names[] = "ABCBBXYZ"; /* 8 names of 1 byte */
    const float times[] = {4.9e-2f, 1.0e-2f, 1.9e-2f, 9.0e-3f,
                           2.8e-2f, 9.0e-3f, 1.0e-2f, 9.0e-3f};
    double seconds[8];
    for (int i = 0; i < 8; i++) seconds[i] = times[i];
    return pp_timer_deserialize(t, tree, 16, names, 1, seconds, 8);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: timer_test DOC_EXACT_GOLDEN\n");
        return 2;
    }
    const char *golden = read_file(argv[1]);
    CHECK(golden != NULL);

    /* An instance: the documentation's tree, written byte for byte. */
    pp_timer_tree *doc = pp_timer_tree_new(PP_TIMER_NAMES_EXACT);
    CHECK(doc != NULL);
    CHECK(deserialize_doc(doc) == PP_TIMER_OK);
    char *text = NULL;
    size_t len = 0;
    CHECK(pp_timer_write(doc, 2, 0, &text, &len) == PP_TIMER_OK);
    CHECK(text != NULL && golden != NULL && strcmp(text, golden) == 0);
    CHECK(len == strlen(text));
    pp_timer_free(text);

    /* Caller's buffer: too small first, with the size needed. */
    char small[8];
    size_t needed = 0;
    CHECK(pp_timer_write_into(doc, 2, 5, small, sizeof small, &needed) ==
          PP_TIMER_BUFFER_TOO_SMALL);
    CHECK(needed == strlen("B: 2.80000E-02\n  X: 9.00000E-03\n"
                           "  Y: 1.00000E-02\n  Z: 9.00000E-03\n"));
    char *big = malloc(needed + 1);
    CHECK(pp_timer_write_into(doc, 2, 5, big, needed + 1, &len) == PP_TIMER_OK);
    CHECK(strncmp(big, "B: 2.80000E-02\n  X: 9.00000E-03\n", 32) == 0);
    free(big);

    /* Handles: read, and the errors of a bad one. */
    double seconds = 0;
    CHECK(pp_timer_read(doc, 3, &seconds) == PP_TIMER_OK);
    CHECK(seconds == (double)1.9e-2f);
    CHECK(pp_timer_read(doc, 9, &seconds) == PP_TIMER_BAD_HANDLE);
    CHECK(strstr(last_error(), "handle 9") != NULL);
    CHECK(pp_timer_read(doc, -1, &seconds) == PP_TIMER_BAD_HANDLE);
    CHECK(pp_timer_read(doc, 1, NULL) == PP_TIMER_INVALID_ARGUMENT);
    CHECK(pp_timer_write(doc, -1, 0, &text, &len) == PP_TIMER_INVALID_ARGUMENT);

    /* Serialize: library-allocated, then into the caller's arrays. */
    pp_timer_serialized *s = NULL;
    CHECK(pp_timer_serialize(doc, &s) == PP_TIMER_OK);
    CHECK(s != NULL && s->count == 8 && s->name_len == 1);
    CHECK(s->tree[0] == 1 && s->tree[15] == 5 && s->names[7] == 'Z');
    CHECK(s->time[4] == (double)2.8e-2f);
    pp_timer_serialized_free(s);
    size_t count = 0, name_len = 0;
    CHECK(pp_timer_serialize_into(doc, NULL, NULL, 0, NULL, 0, &count, &name_len) ==
          PP_TIMER_BUFFER_TOO_SMALL);
    CHECK(count == 8 && name_len == 1);
    int tree[16];
    char names[8 * 4];
    double times[8];
    CHECK(pp_timer_serialize_into(doc, tree, names, 4, times, 8, &count, &name_len) ==
          PP_TIMER_OK);
    CHECK(tree[8] == 5 && memcmp(names, "A   B   C   ", 12) == 0);

    /* Invalid arrays: an error naming the index, the tree unchanged. */
    const int crossing[] = {1, 2, 1, 2};
    const double two[] = {1.0, 2.0};
    CHECK(pp_timer_deserialize(doc, crossing, 4, "AB", 1, two, 2) ==
          PP_TIMER_INVALID_SERIAL);
    CHECK(strstr(last_error(), "tree[2]") != NULL);
    CHECK(pp_timer_read(doc, 8, &seconds) == PP_TIMER_OK);

    /* The global tree (NULL), independent of the instance. */
    int a = 0, b = 0;
    CHECK(pp_timer_start(NULL, "solve", 5, &a) == PP_TIMER_OK);
    CHECK(pp_timer_start(NULL, "step", 4, &b) == PP_TIMER_OK);
    CHECK(a == 1 && b == 2);
    CHECK(pp_timer_stop(NULL, "solve", 5) == PP_TIMER_MISNEST);
    CHECK(strcmp(last_error(),
                 "TIMER_TREE%STOP: current timer is step; cannot stop solve") == 0);
    CHECK(pp_timer_stop(NULL, "step", 4) == PP_TIMER_OK);
    CHECK(pp_timer_stop(NULL, "solve", 5) == PP_TIMER_OK);
    CHECK(pp_timer_write(NULL, 4, 0, &text, NULL) == PP_TIMER_OK);
    CHECK(strncmp(text, "solve:", 6) == 0 && strstr(text, "\n    step:") != NULL);
    pp_timer_free(text);
    CHECK(pp_timer_read(doc, 1, &seconds) == PP_TIMER_OK &&
          seconds == (double)4.9e-2f);

    /* Name rules: exact by default, blank-padded on request. */
    CHECK(pp_timer_start(NULL, "pad", 3, NULL) == PP_TIMER_OK);
    CHECK(pp_timer_stop(NULL, "pad  ", 5) == PP_TIMER_MISNEST);
    CHECK(pp_timer_set_name_match(NULL, PP_TIMER_NAMES_BLANK_PADDED) == PP_TIMER_OK);
    CHECK(pp_timer_stop(NULL, "pad  ", 5) == PP_TIMER_OK);
    CHECK(pp_timer_set_name_match(NULL, 7) == PP_TIMER_INVALID_ARGUMENT);
    CHECK(pp_timer_tree_new(7) == NULL);

    /* Reset; an empty tree writes and serializes nothing. */
    CHECK(pp_timer_reset(NULL) == PP_TIMER_OK);
    CHECK(pp_timer_write(NULL, 2, 0, &text, &len) == PP_TIMER_EMPTY);
    CHECK(pp_timer_serialize(NULL, &s) == PP_TIMER_EMPTY);
    CHECK(pp_timer_start(NULL, NULL, 3, NULL) == PP_TIMER_INVALID_ARGUMENT);

    pp_timer_tree_free(doc);
    pp_timer_tree_free(NULL);
    if (failures == 0) printf("C API: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
