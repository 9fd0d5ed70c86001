/* The same work as b_mix in bench.cl, as plain C on the host: the baseline of
 * scripts/bench-sim.sh. Usage: native GRID BLOCK ITERS (prints a checksum). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
int main(int argc, char **argv)
{
	if (argc != 4) return 2;
	int grid = atoi(argv[1]), block = atoi(argv[2]), iters = atoi(argv[3]);
	float *a = malloc(sizeof(float) * (size_t)block), *c = malloc(sizeof(float) * (size_t)block), *t = malloc(sizeof(float) * (size_t)block);
	unsigned *x = malloc(sizeof(unsigned) * (size_t)block);
	double sum = 0;
	clock_t c0 = clock();
	for (int g = 0; g < grid; g++) {
		for (int l = 0; l < block; l++) { a[l] = 0.001f * (float)l; c[l] = 0.5f; x[l] = (unsigned)(g * block + l); }
		for (int k = 0; k < iters; k++) {
			for (int l = 0; l < block; l++) {
				a[l] = fmaf(a[l], 1.0001f, c[l]);
				x[l] = x[l] * 1664525u + 1013904223u;
				c[l] = c[l] * 0.999f + (float)(x[l] & 7);
				t[l] = a[l];
			}
			for (int l = 0; l < block; l++) a[l] += t[(l + 1) % block] * 0.25f;
		}
		for (int l = 0; l < block; l++) sum += a[l] + (float)x[l];
	}
	fprintf(stderr, "native: %.3f s CPU\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
	printf("%g\n", sum);
	return 0;
}
