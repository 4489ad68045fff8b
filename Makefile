# contactmap: see README.md.
GO ?= go
GOFLAGS ?=

LIST    ?= data/pisces/cullpdb_pc25_res3.0_R1.0_d180920_chains14051.gz
PDBDIR  ?= data/pdb
FEATURES ?= features
WORKERS ?= 2
# A sequence database for the feature targets' alignment search (features
# --db, docs/msa.md): "make features SEARCH_DB=uniref50.fasta.gz [SEARCH=mmseqs]"
# gives every chain an alignment in FEATURES/msa and MSA features.
SEARCH_DB ?=
SEARCH  ?= jackhmmer
SEARCH_FLAGS = $(if $(SEARCH_DB),--db $(SEARCH_DB) --search $(SEARCH))

EPOCHS  ?= 30
RUNS    ?= runs

# The default build is pure Go: its sgemm has AVX-512 and AVX2 assembly
# kernels chosen at run time (portable Go elsewhere), no cgo, no system
# library. "make build-openblas" builds the OpenBLAS variant (cgo,
# libopenblas-dev) used by make bench for comparison.
HAVE_OPENBLAS := $(shell printf 'int main(void){return 0;}\n' | $${CC:-cc} -x c - -lopenblas -o /dev/null >/dev/null 2>&1 && echo yes)

.PHONY: train-bf16 train-bf16-rna train-paper-ext train-msa-net features-families features-families-mf features-families-seq train-rna-families train-rna-template overlap coevolution features-long-msa compare-shipped features-long-cb select features-cb compare-cb compare-paper compare-ext sets features-ext features-long train-rec train-rna all build build-openblas compare test test-slurm vet bench bench-deps bench-go fuzz clean features features-ss features-msa train demo rna-fold-cache test-exhaustive

all: build

build:
	$(GO) build $(GOFLAGS) -buildvcs=auto -o contactmap ./cmd/contactmap

build-openblas:
	$(GO) build $(GOFLAGS) -tags openblas -buildvcs=auto -o contactmap-openblas ./cmd/contactmap

# The full length-25-100 PDB25 set from the bundled data, sequence-only
# features (every chain; PSIPRED covers only some of them); with DB, MSA
# features from a search of each chain.
features: build
	./contactmap features --list $(LIST) --pdb-dir $(PDBDIR) --out $(FEATURES) --workers $(WORKERS) $(SEARCH_FLAGS)

# The same with PSIPRED predictions (chains without one are skipped).
features-ss: build
	./contactmap features --list $(LIST) --pdb-dir $(PDBDIR) --ss data/ss/psipred.fasta --out $(FEATURES)-ss --workers $(WORKERS) $(SEARCH_FLAGS)

# C-beta labels (CASP's definition: C-beta atoms, C-alpha for glycine,
# < 8 A) on the same chains and split as make features.
features-cb: build
	./contactmap features --list $(LIST) --pdb-dir $(PDBDIR) --cb --out $(FEATURES)-cb --workers $(WORKERS) $(SEARCH_FLAGS)

# MSA mode: the chains of the list that have a bundled alignment.
features-msa: build
	./contactmap features --list $(LIST) --pdb-dir $(PDBDIR) --msa-dir data/msa --min-len 1 --max-len 100000 --out $(FEATURES)-msa --workers $(WORKERS)

# features-families: the features of the deep-alignment families that
# experiments/msa-net trains and evaluates on (138 chains: 102 PSICOV
# benchmark families of ../shared/data/psicov150 and 36 Pfam families of
# data/msa, split by family in experiments/msa-net/split;
# chains.tsv and the alignment links in msa/ from go run
# ./experiments/msa-net/sets), C-beta labels at 8 A and the plmDCA
# co-evolution channel (mode msa+plm; minutes per deep family), each fit
# stopped at a relative decrease of 1e-4 as when the shipped MSA network
# was trained (plmDCA's default is 0.01 since). Resumable: a rerun keeps
# the valid feature files already in the directory.
# features-families-mf: the same with mean-field DCA (mode msa; fast).
# features-families-seq: sequence-only features of the same chains (mode
# seq), the shipped single-sequence ensemble's input.
FAMILY_SETS ?= experiments/msa-net/sets
FEATURES_FAMILIES ?= features-families
features-families: build
	./contactmap features --chains $(FAMILY_SETS)/chains.tsv --pdb-dir $(PDBDIR) --msa-dir $(FAMILY_SETS)/msa --min-len 1 --max-len 100000 --cb --plm --plm-epsilon 1e-4 --out $(FEATURES_FAMILIES) --workers $(WORKERS)
features-families-mf: build
	./contactmap features --chains $(FAMILY_SETS)/chains.tsv --pdb-dir $(PDBDIR) --msa-dir $(FAMILY_SETS)/msa --min-len 1 --max-len 100000 --cb --out $(FEATURES_FAMILIES)-mf --workers $(WORKERS)
features-families-seq: build
	./contactmap features --chains $(FAMILY_SETS)/chains.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --cb --out $(FEATURES_FAMILIES)-seq --workers $(WORKERS)

# The MSA networks of experiments/msa-net: the default CNN and
# SCNN on features-families/, seeds 1..MSA_SEEDS, two runs at a time with
# one worker each (resumable: a rerun resumes unfinished runs), then the
# validation report beside the model-free methods.
MSA_RUNS ?= experiments/msa-net/runs
MSA_SEEDS ?= 5
# freecontact modes in the report: PSICOV takes minutes of CPU per family
MSA_FREECONTACT ?= evfold
train-msa-net: build
	KINDS="scnn cnn" RUNS=$(MSA_RUNS) SEEDS=$(MSA_SEEDS) PARALLEL=2 scripts/seeds.sh train --features $(FEATURES_FAMILIES) --epochs 40 --patience 6 --workers 1
	$(GO) run ./experiments/msa-net/eval -plm $(FEATURES_FAMILIES) -mf $(FEATURES_FAMILIES)-mf -seq $(FEATURES_FAMILIES)-seq -runs $(MSA_RUNS) -split validation -freecontact $(MSA_FREECONTACT)

# Train the default CNN and SCNN from scratch on features/ and evaluate
# both on the test split: runs/{cnn,scnn}/ (model.scnn, train_log.tsv,
# curves.png, checkpoint.scnn) and runs/report.{md,json}.
train: features
	./contactmap train --features $(FEATURES) --model cnn --out $(RUNS)/cnn --epochs $(EPOCHS) --workers $(WORKERS)
	./contactmap train --features $(FEATURES) --model scnn --out $(RUNS)/scnn --epochs $(EPOCHS) --workers $(WORKERS)
	./contactmap eval --force --features $(FEATURES) --split test --model $(RUNS)/cnn/model.scnn --model $(RUNS)/scnn/model.scnn --out $(RUNS)/report
	mkdir -p models
	for k in cnn scnn; do cp $(RUNS)/$$k/model.scnn models/$$k.scnn; \
		cp $(RUNS)/$$k/train_log.tsv models/$$k.train_log.tsv; cp $(RUNS)/$$k/curves.png models/$$k.curves.png; done
	cp $(RUNS)/report.md $(RUNS)/report.json models/

# The main job on the bundled data with the shipped models: features,
# predictions for a few chains (RR, .npy, PNG in predictions/: 1ENH_A is
# not in the PISCES list, the other three are test-split chains), and the
# evaluation table of both models and the baselines on the test split;
# then RNA: structures of two test molecules with the shipped default
# RNA SCNN (BPSEQ, CT, dot-bracket, PNG in predictions/rna) and its
# evaluation table on the 35 test molecules beside the model-free
# baselines. The MFE, centroid and MEA structures of the test molecules
# come from the committed seed data/rna/test/folds.tsv.gz (make
# rna-fold-cache); the network's pair probabilities (span 200) are
# computed on a fresh machine, and cached in the user's cache directory
# after the first run.
demo: features
	./contactmap predict --force --out predictions 1ENH_A 1B9W_A 1C1Y_B 1C94_A
	./contactmap eval --features $(FEATURES) --split test --model distilled --model ensemble --model models/cnn.scnn --model models/scnn.scnn
	./contactmap rna predict --force --out predictions/rna data/rna/test/5S/d.5.e.M.fossilis.nopct data/rna/test/rnasep/A.ferrooxidans.ct
	./contactmap rna eval --model rna-scnn-bpp-global-3seeds --split test

# The seed of rna eval's fold caches for the bundled test split: the MFE
# and centroid structures (Turner 2004, RNAfold's defaults) of its 35
# molecules, keyed by sequence, under the fingerprint of rna/fold's
# results (ssnet.FoldFingerprint). Rerun after a change to rna/fold that
# changes folds (TestCommittedFoldSeed says so); a few minutes.
rna-fold-cache:
	$(GO) run ./rna/ssnet/internal/foldseed -out data/rna/test/folds.tsv.gz data/rna/test/testdata.txt

# The extended training set and length-generalisation set of
# experiments/extended, built from the structures on disk (package sets;
# a few minutes): $(SETS)/extended.tsv
# (every mirror chain of length 25-100 related to no validation or test
# chain of $(FEATURES), near-duplicates removed, plus those validation and
# test chains) and $(SETS)/long.tsv (chains over 100 residues related to
# no training or validation chain), with what was left out and why.
SETS ?= experiments/extended/sets
sets: features
	./contactmap sets --force --features $(FEATURES) --pdb-dir $(PDBDIR) --extra-dir data/msa --out $(SETS) --workers $(WORKERS)

# Their feature directories (sequence-only features, like make features;
# no length filter: the sets chose their chains, and the base's held-out
# chains keep their PISCES-length selection although some have longer
# SEQRES).
features-ext: build
	./contactmap features --chains $(SETS)/extended.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --out $(FEATURES)-ext --workers $(WORKERS)
features-long: build
	./contactmap features --chains $(SETS)/long.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --out $(FEATURES)-long --workers $(WORKERS)

# CNN vs SCNN over seeds (1..SEEDS) on the PISCES split: trains what is
# missing (resuming killed runs), then evaluates every finished run on the
# test split once and writes $(COMPARE_RUNS)/report.{md,json}: mean and sd
# over seeds, paired differences, bootstrap CIs over test chains.
SEEDS ?= 5
COMPARE_RUNS ?= runs/compare
compare: features
	CONTACTMAP=./contactmap SEEDS=$(SEEDS) RUNS=$(COMPARE_RUNS) FEATURES=$(FEATURES) EPOCHS=$(EPOCHS) WORKERS=$(WORKERS) scripts/compare-seeds.sh
	./contactmap compare --force --features $(FEATURES) --runs $(COMPARE_RUNS) --out $(COMPARE_RUNS)/report

# make compare on C-beta labels (features-cb): CB_RUNS holds the runs and
# report.{md,json} (test chains) and report-long.{md,json} (the
# length-generalisation set with C-beta labels, features-long-cb), to read
# beside make compare's C-alpha reports, and baselines{,-long}.{md,json}
# (the model-free predictors on the C-beta labels; baselines-long-calpha
# on the long set's C-alpha labels).
CB_RUNS ?= runs/compare-cb
compare-cb: features-cb features-long-cb features-long
	CONTACTMAP=./contactmap SEEDS=$(SEEDS) RUNS=$(CB_RUNS) FEATURES=$(FEATURES)-cb EPOCHS=$(EPOCHS) WORKERS=$(WORKERS) scripts/compare-seeds.sh
	./contactmap compare --force --features $(FEATURES)-cb --runs $(CB_RUNS) --out $(CB_RUNS)/report
	./contactmap compare --force --features $(FEATURES)-long-cb --runs $(CB_RUNS) --out $(CB_RUNS)/report-long
	./contactmap eval --force --features $(FEATURES)-cb --split test --out $(CB_RUNS)/baselines
	./contactmap eval --force --features $(FEATURES)-long-cb --split test --out $(CB_RUNS)/baselines-long
	./contactmap eval --force --features $(FEATURES)-long --split test --out $(CB_RUNS)/baselines-long-calpha

# Why long-range precision stays low (docs/protein.md, "More data"): on the long
# set's chains with a bundled alignment, the alignment's DCA score alone
# against the shipped ensemble: experiments/coevolution/report.{md,json}.
features-long-msa: build
	./contactmap features --chains $(SETS)/long.tsv --pdb-dir $(PDBDIR) --msa-dir data/msa --min-len 1 --max-len 100000 --out $(FEATURES)-long-msa --workers $(WORKERS)
coevolution: features-long features-long-msa
	$(GO) run $(GOFLAGS) ./experiments/coevolution -seq $(FEATURES)-long -msa $(FEATURES)-long-msa -out experiments/coevolution/report

# The length-generalisation set with C-beta labels.
features-long-cb: build
	./contactmap features --chains $(SETS)/long.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --cb --out $(FEATURES)-long-cb --workers $(WORKERS)

# The same comparison trained on the extended set (make sets), two runs
# at a time with one worker each (resumable): EXT_RUNS holds the runs; report.{md,json} on the PISCES test chains (the same
# files as features/), report-long.{md,json} on the length-generalisation
# set; and the PISCES-trained runs of make compare on that set too.
EXT_RUNS ?= runs/compare-ext
compare-ext: features-ext features-long
	KINDS="cnn scnn" SEEDS=$(SEEDS) RUNS=$(EXT_RUNS) PARALLEL=2 scripts/seeds.sh \
		train --features $(FEATURES)-ext --epochs $(EPOCHS) --workers 1
	./contactmap compare --force --features $(FEATURES)-ext --runs $(EXT_RUNS) --out $(EXT_RUNS)/report
	./contactmap compare --force --features $(FEATURES)-long --runs $(EXT_RUNS) --out $(EXT_RUNS)/report-long
	if [ -d $(COMPARE_RUNS) ]; then ./contactmap compare --force --features $(FEATURES)-long --runs $(COMPARE_RUNS) --out $(COMPARE_RUNS)/report-long; fi

# The paper-size CNN and SCNN (2.5M and 1.5M parameters) on the PISCES
# split, PAPER_SEEDS seeds, side by side on one core each (both under the
# same conditions), each run's training bounded by BUDGET of wall clock
# across its sessions (killed runs resume from the checkpoint, written
# every 10 minutes), then evaluated like make compare:
# $(PAPER_RUNS)/report.{md,json} and report-long.{md,json}.
PAPER_RUNS ?= runs/compare-paper
PAPER_SEEDS ?= 2
BUDGET ?= 90m
compare-paper: features features-long
	KINDS="cnn scnn" SEEDS=$(PAPER_SEEDS) RUNS=$(PAPER_RUNS) PARALLEL=2 scripts/seeds.sh \
		train --features $(FEATURES) --config paper --epochs 100 --budget $(BUDGET) --workers 1
	./contactmap compare --force --features $(FEATURES) --runs $(PAPER_RUNS) --out $(PAPER_RUNS)/report
	./contactmap compare --force --features $(FEATURES)-long --runs $(PAPER_RUNS) --out $(PAPER_RUNS)/report-long

# experiments/paper-ext: the paper-size SCNN and CNN trained longer on the
# extended set (features-ext), resumable across sessions: each run's
# training is bounded by PAPER_EXT_BUDGET of wall clock over all its
# sessions, and a run interrupted by SIGINT or SIGTERM resumes from its
# checkpoint on the next call. Logs and curves sit in PAPER_EXT_RUNS
# (experiments/paper-ext, committed); models and checkpoints (6-30 MB)
# stay on the machine (.gitignore). Validation only: the test chains
# and the long set are read by the comparison at the end
# (experiments/paper-ext/README.md).
# Training in bfloat16 (experiments/bf16): the default
# SCNN and CNN on the extended set with --precision bfloat16, seeds
# 1-BF16_SEEDS, one run at a time (one worker, beside other work),
# resumable like every seeds.sh run; the float32 reference is
# experiments/compare-ext (same command, same seeds). Needs a CPU with
# AVX512_BF16. BF16_PRECISION=float32 BF16_RUNS=experiments/bf16/float32
# trains the float32 reference with the same code.
BF16_RUNS ?= experiments/bf16/bfloat16
BF16_KINDS ?= scnn cnn
BF16_SEEDS ?= 5
BF16_PRECISION ?= bfloat16
train-bf16: build
	for k in $(BF16_KINDS); do \
		KINDS=$$k SEEDS=$(BF16_SEEDS) RUNS=$(BF16_RUNS) PARALLEL=1 scripts/seeds.sh \
			train --features $(FEATURES)-ext --epochs $(EPOCHS) --workers 1 --precision $(BF16_PRECISION) || exit 1; \
	done

# The same for the RNA recipe (experiments/rna-families, 2 workers as its
# float32 seeds). BF16_RNA_PRECISION=float32
# BF16_RNA_RUNS=experiments/bf16/rna-float32 trains the float32 reference
# with the same code; BF16_RNA_KINDS and BF16_SEED_FROM pick runs.
BF16_RNA_RUNS ?= experiments/bf16/rna
BF16_RNA_PRECISION ?= bfloat16
BF16_RNA_KINDS ?= scnn cnn
BF16_SEED_FROM ?= 1
train-bf16-rna: build
	KINDS="$(BF16_RNA_KINDS)" SEED_FROM=$(BF16_SEED_FROM) SEEDS=$(BF16_SEEDS) RUNS=$(BF16_RNA_RUNS) PARALLEL=1 scripts/seeds.sh \
		rna train --protocol families --train $(RNA_FAMILIES_TRAIN) --valid $(RNA_FAMILIES_VALID) \
		--mfe-cache experiments/rna-families/mfe-cache.tsv.gz --workers 2 --precision $(BF16_RNA_PRECISION)

PAPER_EXT_RUNS ?= experiments/paper-ext
PAPER_EXT_KINDS ?= scnn cnn
PAPER_EXT_SEEDS ?= 1
PAPER_EXT_BUDGET ?= 12h
PAPER_EXT_PARALLEL ?= 1
PAPER_EXT_WORKERS ?= 1
train-paper-ext: build
	KINDS="$(PAPER_EXT_KINDS)" SEEDS=$(PAPER_EXT_SEEDS) RUNS=$(PAPER_EXT_RUNS) PARALLEL=$(PAPER_EXT_PARALLEL) scripts/seeds.sh \
		train --features $(FEATURES)-ext --config paper --epochs 100 --budget $(PAPER_EXT_BUDGET) --workers $(PAPER_EXT_WORKERS)

# The shipped default (models/ensemble: the pick of make select) against
# the SCNN shipped before it (models/scnn.scnn), each scored as one
# predictor, on the PISCES test chains and on the length-generalisation
# set (make features-long): $(SHIPPED_OUT)/{test,long}.{md,json}.
SHIPPED_OUT ?= experiments/shipped
compare-shipped: build
	./contactmap compare --force --features $(FEATURES) --split test --ensemble \
		--side 'shipped-scnn=models/scnn.scnn' --side 'ensemble=models/ensemble/*.scnn' --out $(SHIPPED_OUT)/test
	./contactmap compare --force --features $(FEATURES)-long --split test --ensemble \
		--side 'shipped-scnn=models/scnn.scnn' --side 'ensemble=models/ensemble/*.scnn' --out $(SHIPPED_OUT)/long

# The shipped default's candidates (experiments/compare-ext/README.md):
# the single runs and seed ensembles of make compare (kept in
# experiments/compare-default) and make compare-ext, on the validation
# split only, best long-range top-L/5 first: $(EXT_RUNS)/select.{md,json}.
PISCES_RUNS ?= experiments/compare-default
select: build
	./contactmap eval --features $(FEATURES) --split validation --baselines=false --sort \
		$(foreach d,$(PISCES_RUNS) $(EXT_RUNS),$(foreach k,cnn scnn,$(foreach s,1 2 3 4 5,--model $(d)/$(k)-seed$(s)/model.scnn))) \
		$(foreach d,$(PISCES_RUNS) $(EXT_RUNS),--ensemble '$(d)/cnn-seed*/model.scnn' --ensemble '$(d)/scnn-seed*/model.scnn' --ensemble '$(d)/*-seed*/model.scnn') \
		--out $(EXT_RUNS)/select

# The test chains of the PISCES split related to none of its training
# chains (experiments/overlap: the sets rule; PISCES's own culling lets
# some through), and every committed comparison on them: the 5-seed CNN
# vs SCNN on C-alpha and C-beta labels, PISCES- vs extended-trained runs
# of each kind, the shipped ensemble vs the SCNN shipped before, and the
# paper-size runs when $(PAPER_RUNS) holds them. Reports in OVERLAP_OUT.
OVERLAP_OUT ?= experiments/overlap
overlap: build features
	mkdir -p $(OVERLAP_OUT)
	$(GO) run $(GOFLAGS) ./experiments/overlap -features $(FEATURES) -out $(OVERLAP_OUT) > $(OVERLAP_OUT)/related.txt
	cat $(OVERLAP_OUT)/related.txt
	./contactmap features --chains $(OVERLAP_OUT)/test-disjoint.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --out $(FEATURES)-disjoint --workers $(WORKERS)
	./contactmap features --chains $(OVERLAP_OUT)/test-disjoint.tsv --pdb-dir $(PDBDIR) --min-len 1 --max-len 100000 --cb --out $(FEATURES)-disjoint-cb --workers $(WORKERS)
	./contactmap compare --force --features $(FEATURES)-disjoint --runs $(PISCES_RUNS) --out $(OVERLAP_OUT)/default
	./contactmap compare --force --features $(FEATURES)-disjoint-cb --runs experiments/compare-cb --out $(OVERLAP_OUT)/cb
	./contactmap compare --force --features $(FEATURES)-disjoint --side 'PISCES-CNN=$(PISCES_RUNS)/cnn-seed*/model.scnn' --side 'EXT-CNN=experiments/compare-ext/cnn-seed*/model.scnn' --out $(OVERLAP_OUT)/more-data-cnn
	./contactmap compare --force --features $(FEATURES)-disjoint --side 'PISCES-SCNN=$(PISCES_RUNS)/scnn-seed*/model.scnn' --side 'EXT-SCNN=experiments/compare-ext/scnn-seed*/model.scnn' --out $(OVERLAP_OUT)/more-data-scnn
	./contactmap compare --force --features $(FEATURES)-disjoint --ensemble --side 'shipped-scnn=models/scnn.scnn' --side 'ensemble=models/ensemble/*.scnn' --out $(OVERLAP_OUT)/shipped
	if [ -d $(PAPER_RUNS) ]; then ./contactmap compare --force --features $(FEATURES)-disjoint --runs $(PAPER_RUNS) --out $(PAPER_RUNS)/report-disjoint; fi

# Sequential recommendation (MovieLens 100K beside the repository; its
# terms forbid redistribution, so it is not bundled): CosRec and SCosRec
# with seeds 1..SEEDS, two runs at a time with one worker each (resumable),
# then every finished run evaluated once on the test split:
# $(REC_RUNS)/report.{md,json}.
REC_DATA ?= ../shared/data/movielens-100k
REC_RUNS ?= runs/rec
REC_EPOCHS ?= 40
train-rec: build
	KINDS="cosrec scosrec" SEEDS=$(SEEDS) RUNS=$(REC_RUNS) PARALLEL=2 scripts/seeds.sh \
		rec train --data $(REC_DATA) --epochs $(REC_EPOCHS) --workers 1
	./contactmap rec compare --force --data $(REC_DATA) --runs $(REC_RUNS) --out $(REC_RUNS)/report

# RNA secondary structure on the bundled 16S data (data/rna): the CNN and
# the SCNN under PROTOCOL (default: seeds 1..SEEDS, two runs at a time
# with one worker each, 13-25 minutes a run that way, at most 8.4 alone
# with two workers; paper: the paper's widths, 500-nt crops and 27,500
# steps, seed 1, about 11 (SCNN) and 16 (CNN) days on two cores),
# resumable, then every finished run evaluated once on the test
# molecules: $(RNA_RUNS)/report.{md,json} (all 35) and
# report-disjoint.{md,json} (no training overlap), and the evaluation
# table with the overlap analysis and the baseline: $(RNA_RUNS)/eval.{md,json}.
PROTOCOL ?= default
RNA_RUNS ?= runs/rna/$(PROTOCOL)
RNA_SEEDS = $(if $(filter paper,$(PROTOCOL)),1,$(SEEDS))
train-rna: build
	KINDS="cnn scnn" SEEDS=$(RNA_SEEDS) RUNS=$(RNA_RUNS) PARALLEL=2 scripts/seeds.sh \
		rna train --protocol $(PROTOCOL) --workers 1
	./contactmap rna compare --force --runs $(RNA_RUNS) --out $(RNA_RUNS)/report
	./contactmap rna eval --force $(foreach k,cnn scnn,--model $(RNA_RUNS)/$(k)-seed1/model.scnn) --out $(RNA_RUNS)/eval

# The template networks of experiments/rna-template (README.md there): the
# template-short CNN and SCNN with seeds 1-TEMPLATE_SEEDS (3 by default), two at a time on one
# core each (resumable: run it again after an interruption), then their
# comparison under the validation-picked decoder, and the validation
# table of every SCNN candidate with both model-free baselines.
RNA_TEMPLATE_RUNS ?= experiments/rna-template/short
RNA_DECODER ?= greedy
TEMPLATE_SEEDS ?= 3
train-rna-template: build
	KINDS="scnn cnn" SEEDS=$(TEMPLATE_SEEDS) RUNS=$(RNA_TEMPLATE_RUNS) PARALLEL=2 scripts/seeds.sh \
		rna train --protocol template-short --workers 1
	./contactmap rna eval --split validation $(foreach s,$(shell seq 1 $(TEMPLATE_SEEDS)),--model $(RNA_TEMPLATE_RUNS)/scnn-seed$(s)/model.scnn) \
		--out experiments/rna-template/select
	./contactmap rna compare --force --runs $(RNA_TEMPLATE_RUNS) --decoder $(RNA_DECODER) --out $(RNA_TEMPLATE_RUNS)/report

# RNA for every family (experiments/rna-families): the families
# protocol (template and energy channels) on the 16S training set beside
# bpRNA TR0 less the molecules similar to the 16S validation and test sets
# (rna dedup), validated on the 16S validation set and VL0; SCNN and CNN
# seeds 1..FAMILIES_SEEDS, two at a time (each run resumes where a killed
# invocation left it; MFE structures cached in the experiment).
RNA_FAMILIES_RUNS ?= experiments/rna-families/runs
FAMILIES_SEEDS ?= 3
BPRNA ?= ../shared/data/bprna
RNA_FAMILIES_TRAIN = data/rna/16s-finaltrain.txt,experiments/rna-families/tr0-dedup.dbn.gz
RNA_FAMILIES_VALID = data/rna/16s-finalvalid.txt,$(BPRNA)/VL0.dbn.gz
train-rna-families: build
	KINDS="scnn cnn" SEEDS=$(FAMILIES_SEEDS) RUNS=$(RNA_FAMILIES_RUNS) PARALLEL=2 scripts/seeds.sh \
		rna train --protocol families --train $(RNA_FAMILIES_TRAIN) --valid $(RNA_FAMILIES_VALID) \
		--mfe-cache experiments/rna-families/mfe-cache.tsv.gz

# Short fuzzing: every Fuzz function of the module, FUZZTIME each (found
# by go test -list, so none is left out; the seeds and any crashers kept
# in testdata/fuzz run in make test anyway).
FUZZTIME ?= 20s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The README's test command: vet and every test of the default build,
# the network library's tests again with the portable Go kernels (purego
# tag; the kernel tests force each instruction set the CPU has in both),
# and, where OpenBLAS links, the OpenBLAS build's vet and kernel tests.
# The tag passes skip TAG_SKIP, the heavy kernel tests whose code neither
# tag changes: the direct and row forward passes call no Gemm, and the
# purego build's one kernel set is the portable set the default pass
# tests. -timeout 30m: a slow host fails on a hang, not on go test's
# 10-minute default. make test-exhaustive runs the kernel tests' full
# sweeps (CONTACTMAP_EXHAUSTIVE: every shape on every kernel set).
TAG_SKIP = ^(TestConvForwardDirect|TestConvForwardBranchesDirect|TestConvForwardRows)$$
test: vet
	$(GO) test $(GOFLAGS) -timeout 30m ./...
	$(GO) test $(GOFLAGS) -timeout 30m -tags purego -skip '$(TAG_SKIP)' ./scnn/...
ifeq ($(HAVE_OPENBLAS),yes)
	$(GO) vet $(GOFLAGS) -tags openblas ./scnn/... ./internal/... ./cmd/... ./bench/...
	$(GO) test $(GOFLAGS) -timeout 30m -tags openblas -skip '$(TAG_SKIP)' ./scnn/...
endif

test-exhaustive:
	CONTACTMAP_EXHAUSTIVE=1 $(GO) test $(GOFLAGS) -timeout 60m -count=1 ./scnn/internal/kern/

# The pipeline as SLURM array jobs on a one-node cluster started on
# localhost (root only; skips otherwise). Uses models/scnn.scnn.
test-slurm:
	bash scripts/slurm/test-slurm.sh

vet:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...

# Benchmarks: conv forward+backward GFLOP/s, full vs symmetric.
# Go vs PyTorch and the OpenBLAS build on this machine (see
# bench/main.go): the FMA peak, training steps, inference, conv layers and
# sgemm, written to
# bench/results.md and bench/results.json (earlier runs on other CPUs in
# bench/history/). The last full run took 20 minutes;
# BENCH_ARGS='-only train/default -reps 5' runs a part (written to
# bench/results-partial.md, leaving the full run's tables alone).
PYTHON ?= /usr/bin/python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BENCH_ARGS ?=
# BENCH_BASE=REV (a commit) also times the training and inference steps
# of that commit's build, alternating with this one's (the table "This
# build against the baseline build"); it is built in a git worktree.
BENCH_BASE ?=
BENCH_BASE_ARG := $(if $(BENCH_BASE),-baseline ./contactmap-bench-base)

bench: bench-deps build
	$(GO) build $(GOFLAGS) -o contactmap-bench ./bench
ifneq ($(BENCH_BASE),)
	rm -rf .bench-base && git worktree prune && git worktree add --detach .bench-base $(BENCH_BASE)
	cd .bench-base && $(GO) build $(GOFLAGS) -o ../contactmap-bench-base ./bench
	git worktree remove --force .bench-base
endif
ifeq ($(HAVE_OPENBLAS),yes)
	$(GO) build $(GOFLAGS) -tags openblas -o contactmap-bench-openblas ./bench
	./contactmap-bench -python $(PYTHON) -openblas ./contactmap-bench-openblas $(BENCH_BASE_ARG) $(BENCH_ARGS)
else
	@echo "make bench: no OpenBLAS to link (apt-get install gcc libopenblas-dev); the OpenBLAS build's columns stay empty"
	./contactmap-bench -python $(PYTHON) $(BENCH_BASE_ARG) $(BENCH_ARGS)
endif

# Debian's python3-torch (CPU) is the reference; installed when missing.
bench-deps:
	@$(PYTHON) -c 'import torch' 2>/dev/null || { \
		echo "make bench: installing Debian's python3-torch for the PyTorch reference"; \
		$(SUDO) apt-get install -y python3-torch || { $(SUDO) apt-get update && $(SUDO) apt-get install -y python3-torch; }; }

# The Go micro-benchmarks of the scnn layers (go test -bench), the
# plmDCA scatter in one chunk against chunks, side by side on the deepest
# PSICOV family (skipped without ../shared/data), and the sequence
# weights' mismatch kernels against the byte loop.
bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./scnn/
	CONTACTMAP_PLM_BENCH=1pkoA $(GO) test -run '^$$' -bench ScatterChunk -benchtime 3x ./pipeline/potts/
	$(GO) test -run '^$$' -bench Mismatches ./pipeline/msa/

clean:
	$(GO) clean ./...
	rm -f contactmap contactmap-openblas contactmap-bench contactmap-bench-openblas contactmap-bench-base
