/* Fuzzes the probe sets file parser (and a job's --ebpf value against
 * it). Invariants: an accepted file only holds names, configs and
 * addresses the units and the option may use as they are; a refusal
 * comes with a printable message naming the file; a request never sets
 * a bit beyond the declared sets. An accepted listen= is read the same
 * way by its consumers: its host, given to getaddrinfo(AI_NUMERICHOST)
 * (what report used to connect with), is the address inet_pton reads,
 * and its port is privileged. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sets.h"

/* The listen= text's host, read by getaddrinfo and by inet_pton, agree;
 * the port is 1..1023. */
static void fuzz_listen_agrees(const char *listen, unsigned int port)
{
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints, *ai = NULL;
	char host[80];
	unsigned char a[16];
	size_t n;

	FUZZ_CHECK(colon && port >= 1 && port <= 1023);
	n = (size_t)(colon - listen);
	if (n == 0)
		return; /* every address */
	FUZZ_CHECK(n < sizeof(host));
	memcpy(host, listen, n);
	host[n] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST;
	hints.ai_socktype = SOCK_STREAM;
	if (host[0] == '[') {
		FUZZ_CHECK(n > 2 && host[n - 1] == ']');
		host[n - 1] = '\0';
		FUZZ_CHECK(inet_pton(AF_INET6, host + 1, a) == 1);
		hints.ai_family = AF_INET6;
		FUZZ_CHECK(getaddrinfo(host + 1, NULL, &hints, &ai) == 0);
		FUZZ_CHECK(!memcmp(&((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr, a, 16));
	} else {
		FUZZ_CHECK(inet_pton(AF_INET, host, a) == 1);
		hints.ai_family = AF_INET;
		FUZZ_CHECK(getaddrinfo(host, NULL, &hints, &ai) == 0);
		FUZZ_CHECK(!memcmp(&((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr, a, 4));
	}
	freeaddrinfo(ai);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sets s;
	char err[512], bad[64];
	uint32_t mask, all;
	int i;

	if (sets_parse((const char *)data, size, "f", &s, err, sizeof(err)) < 0) {
		FUZZ_CHECK(!strncmp(err, "f:", 2) && fuzz_printable(err));
		return 0;
	}
	FUZZ_CHECK(s.n >= 1 && s.n <= SETS_MAX);
	all = s.n == 32 ? ~0u : (1u << s.n) - 1;
	FUZZ_CHECK(s.default_mask && !(s.default_mask & ~all) && s.always_mask && !(s.always_mask & ~all));
	for (i = 0; i < s.n; i++) {
		const struct probe_set *ps = &s.set[i];

		FUZZ_CHECK(ps->name[0] >= 'a' && ps->name[0] <= 'z');
		FUZZ_CHECK(strspn(ps->name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(ps->name));
		FUZZ_CHECK(ps->configs[0] && !strchr(ps->configs, '/') && fuzz_printable(ps->configs));
		FUZZ_CHECK(strchr(ps->listen, ':') && ps->port >= 1 && ps->port <= 65535);
		fuzz_listen_agrees(ps->listen, ps->port);
		FUZZ_CHECK(ps->description[0] && fuzz_printable(ps->description));
		FUZZ_CHECK(sets_find(&s, ps->name, strlen(ps->name)) == i);
	}
	FUZZ_CHECK(s.exporter[0] == '/' && !strpbrk(s.exporter, "$% ") && fuzz_printable(s.exporter));
	FUZZ_CHECK(s.config_dir[0] == '/' && !strpbrk(s.config_dir, "$% ") && fuzz_printable(s.config_dir));
	FUZZ_CHECK(strstr(s.unit, "@.service") && fuzz_printable(s.unit));
	FUZZ_CHECK(s.textfile_group[0] && !strpbrk(s.textfile_group, " :\n") &&
		   fuzz_printable(s.textfile_group));
	/* The file's own text as a request: never a bit beyond the sets. */
	{
		char *req = malloc(size + 1);

		FUZZ_CHECK(req);
		memcpy(req, data, size);
		req[size] = '\0';
		/* A refused request holds nothing: never part of it. */
		FUZZ_CHECK(sets_request(&s, req, &mask, bad, sizeof(bad)) == 0 || mask == 0);
		FUZZ_CHECK(!(mask & ~all) && fuzz_printable(bad));
		free(req);
	}
	return 0;
}
