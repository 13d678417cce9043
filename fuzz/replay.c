/* Runs a libFuzzer target over corpus files given on the command line (no libFuzzer needed), so
 * ctest replays the seed corpus under the sanitizers. Prints "N passed, 0 failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            printf("%d passed, 1 failed\n", n);
            return 1;
        }
        uint8_t *buf = malloc(1 << 20);
        size_t len = buf ? fread(buf, 1, 1 << 20, f) : 0;
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    printf("%d passed, 0 failed\n", n);
    return n > 0 ? 0 : 1;
}
