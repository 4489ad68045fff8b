/*
 * vienna_pf_driver.c: prints, for every sequence on standard input (one a
 * line), what RNAfold -p --MEA computes, with more digits, through the
 * ViennaRNA library (the same calls as src/bin/RNAfold.c): the MFE
 * structure and energy, the ensemble free energy, the pairing tendency,
 * the centroid and its distance, the MEA structure and its accuracy, the
 * frequency of the MFE structure, the ensemble diversity, and (P lines,
 * not kept in the cross-check file) every pair probability >= 1e-6.
 * Options: -T temperature, -d dangles, --noLP, --span maxBPspan,
 * -P parameter file, -g MEA gamma.
 *
 * Built against the library sources of ViennaRNA at commit 4dd13b48 with
 * gcc -O2 -Isrc, all of src/ViennaRNA/*.c (but plotting, SVM, SIMD and
 * probing/strategy_eddy.c) and src/cephes/*.c, in a static archive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ViennaRNA/fold_compound.h"
#include "ViennaRNA/model.h"
#include "ViennaRNA/mfe/global.h"
#include "ViennaRNA/partfunc/global.h"
#include "ViennaRNA/params/basic.h"
#include "ViennaRNA/params/io.h"
#include "ViennaRNA/structures/centroid.h"
#include "ViennaRNA/structures/mea.h"
#include "ViennaRNA/probabilities/structures.h"
#include "ViennaRNA/eval/structures.h"

int main(int argc, char **argv) {
  vrna_md_t md;
  double T = 37; int d = 2, noLP = 0, span = -1; char *P = NULL; double gamma = 1;
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "-T")) T = atof(argv[++k]);
    else if (!strcmp(argv[k], "-d")) d = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--noLP")) noLP = 1;
    else if (!strcmp(argv[k], "--span")) span = atoi(argv[++k]);
    else if (!strcmp(argv[k], "-P")) P = argv[++k];
    else if (!strcmp(argv[k], "-g")) gamma = atof(argv[++k]);
  }
  if (P && !vrna_params_load(P, VRNA_PARAMETER_FORMAT_DEFAULT)) { fprintf(stderr, "cannot load %s\n", P); return 1; }
  char line[20000];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '>') continue;
    vrna_md_set_default(&md);
    md.temperature = T; md.dangles = d; md.noLP = noLP; md.compute_bpp = 1;
    if (span > 0) md.max_bp_span = span;
    vrna_fold_compound_t *fc = vrna_fold_compound(line, &md, VRNA_OPTION_DEFAULT);
    int n = strlen(line);
    char *s = calloc(n + 1, 1), *pfs = calloc(n + 1, 1);
    double mfe = (double)vrna_mfe(fc, s);
    vrna_exp_params_rescale(fc, &mfe);
    double G = (double)vrna_pf(fc, pfs);
    double dist; char *cent = vrna_centroid(fc, &dist);
    float mea; char *ms = vrna_MEA(fc, gamma, &mea);
    printf("SEQ %s\nMFE %s %.2f\nG %.10f\nTEND %s\nCENT %s %.10f\nMEA %s %.10f\nFREQ %.10g\nDIV %.10f\n",
      line, s, mfe, G, pfs, cent, dist, ms, mea, vrna_pr_energy(fc, mfe), vrna_mean_bp_distance(fc));
    double *pr = fc->exp_matrices->probs; int *ix = fc->iindx;
    for (int i = 1; i <= n; i++) for (int j = i + 1; j <= n; j++) { double p = pr[ix[i] - j]; if (p >= 1e-6) printf("P %d %d %.17g\n", i, j, p); }
    printf("END\n");
    fflush(stdout);
    vrna_fold_compound_free(fc); free(s); free(pfs); free(cent); free(ms);
  }
  return 0;
}
