/* Runs one fuzz harness over every file in the directories given: the seed
 * corpus and the inputs that once crashed it (regressions). TAP output. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "../unit/tap.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[2 << 20];
	size_t n;
	pid_t pid;
	int status;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* In a child, so one abort is one failed test point, not the end. */
	pid = fork();
	if (pid == 0) {
		LLVMFuzzerTestOneInput(buf, n);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	char corpus[4096], regress[4096];
	char *dirs[] = { argv[0], corpus, regress };
	int i, files = 0;

	/* Without arguments: this harness's seed corpus and regressions. */
	if (argc < 2) {
		snprintf(corpus, sizeof(corpus), "%s/tests/fuzz/corpus/%s", srcdir, FUZZ_NAME);
		snprintf(regress, sizeof(regress), "%s/tests/fuzz/regress/%s", srcdir, FUZZ_NAME);
		argv = dirs;
		argc = 3;
	}
	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char path[4096];

		if (!d) {
			ok(0, "cannot open %s", argv[i]);
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			ok(replay(path), "%s/%s", strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i],
			   e->d_name);
			files++;
		}
		closedir(d);
	}
	ok(files > 0, "replayed %d inputs", files);
	return tap_done();
}
