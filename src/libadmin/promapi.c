/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "promapi.h"
#include "runcmd.h"
#include "text.h"

/* Most values in one answer's document: a sample takes about 12 (its
 * object, the metric object with a few labels, the value pair). */
#define PROMAPI_TOKENS_MAX 2000000

void promapi_vector_free(struct promapi_vector *v)
{
	free(v->s);
	v->s = NULL;
	v->n = 0;
}

/* Appends name="value" (the text format's escapes) to a labels text. The
 * name must be one Prometheus allows ([a-zA-Z_][a-zA-Z0-9_]*): written
 * as it is, any other could pass for more labels ("a\",instance=\"n9"). */
static int promapi_label_append(char *buf, size_t cap, const char *name, const char *value)
{
	size_t n = strlen(buf);
	const char *c;

	if (!(isalpha((unsigned char)name[0]) || name[0] == '_') ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name))
		return -1;
	if (n + strlen(name) + 4 >= cap)
		return -1;
	n += (size_t)snprintf(buf + n, cap - n, "%s%s=\"", n ? "," : "", name);
	for (c = value; *c; c++) {
		const char *esc = *c == '\\' ? "\\\\" : *c == '"' ? "\\\"" : *c == '\n' ? "\\n" : NULL;
		size_t need = esc ? 2 : 1;

		if (n + need + 2 >= cap)
			return -1;
		if (esc) {
			memcpy(buf + n, esc, 2);
		} else {
			buf[n] = *c;
		}
		n += need;
	}
	buf[n++] = '"';
	buf[n] = 0;
	return 0;
}

/* A sample's value: Prometheus writes it as a string ("1.5", "NaN",
 * "+Inf"). */
static int promapi_value(const char *text, double *v)
{
	char *end;

	if (!strcmp(text, "NaN") || !strcmp(text, "+Inf") || !strcmp(text, "-Inf")) {
		*v = text[0] == 'N' ? 0.0 / 0.0 : text[0] == '+' ? 1.0 / 0.0 : -1.0 / 0.0;
		return 0;
	}
	errno = 0;
	*v = strtod(text, &end);
	return *text && !*end && !errno ? 0 : -1;
}

/* String token t into buf, whole: -1 when it is no string or is cut. */
static int promapi_str(const struct json_doc *doc, int t, char *buf, size_t len)
{
	int n = json_string(doc, t, buf, len);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int promapi_parse(const char *body, size_t len, struct promapi_vector *v, char *err,
		  size_t errlen)
{
	struct json_doc doc;
	char s[PROMAPI_LABELS_MAX], name[128];
	int root, data, result, t, rc = -1;

	v->n = 0;
	v->s = NULL;
	if (json_parse(&doc, body, len, PROMAPI_TOKENS_MAX, err, errlen) < 0)
		return -1;
	root = 0;
	if (json_type(&doc, root) != JSON_OBJECT) {
		snprintf(err, errlen, "the answer is not a JSON object");
		goto out;
	}
	t = json_get(&doc, root, "status");
	if (t < 0 || promapi_str(&doc, t, s, sizeof(s)) < 0) {
		snprintf(err, errlen, "the answer has no \"status\"");
		goto out;
	}
	if (strcmp(s, "success")) {
		char text[600], shown[4 * sizeof(text)];

		/* Its words, cut if need be. */
		t = json_get(&doc, root, "error");
		if (t < 0 || json_string(&doc, t, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), "(no error text)");
		snprintf(err, errlen, "Prometheus: %s", text_printable(text, shown, sizeof(shown)));
		goto out;
	}
	data = json_get(&doc, root, "data");
	t = data < 0 ? -1 : json_get(&doc, data, "resultType");
	if (t < 0 || promapi_str(&doc, t, s, sizeof(s)) < 0 || strcmp(s, "vector")) {
		snprintf(err, errlen, "the answer is not an instant vector (data.resultType)");
		goto out;
	}
	result = json_get(&doc, data, "result");
	if (result < 0 || json_type(&doc, result) != JSON_ARRAY) {
		snprintf(err, errlen, "the answer has no data.result array");
		goto out;
	}
	v->s = calloc(json_size(&doc, result) ? json_size(&doc, result) : 1, sizeof(*v->s));
	if (!v->s) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (t = json_first(&doc, result); t >= 0; t = json_next(&doc, t)) {
		struct promapi_sample *o = &v->s[v->n];
		int metric = json_get(&doc, t, "metric"), value = json_get(&doc, t, "value"), k, val;

		if (metric < 0 || json_type(&doc, metric) != JSON_OBJECT || value < 0 ||
		    json_type(&doc, value) != JSON_ARRAY || json_size(&doc, value) != 2) {
			snprintf(err, errlen, "a result without its metric object and [time, value] pair");
			goto out;
		}
		o->labels[0] = 0;
		for (k = json_first(&doc, metric); k >= 0; k = json_next(&doc, k)) {
			val = json_value_of(&doc, k);
			if (promapi_str(&doc, k, name, sizeof(name)) < 0 ||
			    promapi_str(&doc, val, s, sizeof(s)) < 0 ||
			    promapi_label_append(o->labels, sizeof(o->labels), name, s) < 0) {
				snprintf(err, errlen, "a result's labels are not strings with names as Prometheus has them, or are longer than %d bytes",
					 PROMAPI_LABELS_MAX - 1);
				goto out;
			}
		}
		val = json_next(&doc, json_first(&doc, value));
		if (promapi_str(&doc, val, s, sizeof(s)) < 0 || promapi_value(s, &o->value) < 0) {
			snprintf(err, errlen, "a result's value is not a number in a string");
			goto out;
		}
		v->n++;
	}
	rc = 0;
out:
	if (rc < 0)
		promapi_vector_free(v);
	json_free(&doc);
	return rc;
}

/* The body curl wrote to path, at most PROMAPI_BODY_MAX bytes. */
static char *promapi_read_body(const char *path, size_t *len, char *err, size_t errlen)
{
	char *buf = NULL;
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "no answer: %s", strerror(errno));
		goto out;
	}
	if (st.st_size > (off_t)PROMAPI_BODY_MAX) {
		snprintf(err, errlen, "the answer is larger than %u MiB", PROMAPI_BODY_MAX >> 20);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	while (n < (size_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	*len = n;
out:
	if (fd >= 0)
		close(fd);
	return buf;
}

double promapi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int promapi_query(const struct promapi *p, const char *promql, double at,
		  struct promapi_vector *v, char *err, size_t errlen)
{
	static struct runcmd_result res;
	char dir[] = "/tmp/spank-ebpf-prom.XXXXXX", out[64], query[1024], tbuf[40], tmo[16],
	     ctmo[16], maxsize[24], endpoint[PROMAPI_URL_MAX + 16], why[300];
	char *argv[32];
	char *body = NULL;
	size_t len = 0;
	int a = 0, rc = -1;
	unsigned int timeout = p->timeout ? p->timeout : 10;

	v->n = 0;
	v->s = NULL;
	if (httpurl_check(p->url, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "prometheus=: %s", why);
		return -1;
	}
	if ((size_t)snprintf(query, sizeof(query), "query=%s", promql) >= sizeof(query)) {
		snprintf(err, errlen, "the query is too long");
		return -1;
	}
	/* A directory of our own: nobody else can put a file where curl
	 * writes the answer. */
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot make a directory for the answer: %s", strerror(errno));
		return -1;
	}
	snprintf(out, sizeof(out), "%s/answer", dir);
	snprintf(endpoint, sizeof(endpoint), "%s%sapi/v1/query", p->url,
		 p->url[strlen(p->url) - 1] == '/' ? "" : "/");
	snprintf(tbuf, sizeof(tbuf), "time=%.3f", at);
	snprintf(tmo, sizeof(tmo), "%u", timeout);
	snprintf(ctmo, sizeof(ctmo), "%u", timeout < 5 ? timeout : 5);
	snprintf(maxsize, sizeof(maxsize), "%u", PROMAPI_BODY_MAX);
	argv[a++] = (char *)(p->curl ? p->curl : PROMAPI_CURL);
	argv[a++] = "-q"; /* no ~/.curlrc: first, or it is read */
	argv[a++] = "--silent";
	argv[a++] = "--show-error";
	argv[a++] = "--globoff";
	argv[a++] = "--proto";
	argv[a++] = "=http,https";
	argv[a++] = "--max-redirs";
	argv[a++] = "0";
	argv[a++] = "--connect-timeout";
	argv[a++] = ctmo;
	argv[a++] = "--max-time";
	argv[a++] = tmo;
	argv[a++] = "--max-filesize";
	argv[a++] = maxsize;
	if (p->cacert && *p->cacert) {
		argv[a++] = "--cacert";
		argv[a++] = (char *)p->cacert;
	}
	if (p->netrc && *p->netrc) {
		argv[a++] = "--netrc-file";
		argv[a++] = (char *)p->netrc;
	}
	argv[a++] = "--output";
	argv[a++] = out;
	argv[a++] = "--write-out";
	argv[a++] = "%{http_code}";
	argv[a++] = "--get";
	argv[a++] = "--data-urlencode";
	argv[a++] = query;
	argv[a++] = "--data";
	argv[a++] = tbuf;
	argv[a++] = "--";
	argv[a++] = endpoint;
	argv[a] = NULL;
	/* curl's own time bound, and ours a little after it. */
	runcmd(argv, (timeout + 2) * 1000, &res);
	if (res.exec_errno || res.timed_out || !res.exited || res.exit_status) {
		char shown[4 * sizeof(why)];

		runcmd_describe(&res, (timeout + 2) * 1000, why, sizeof(why));
		/* curl's message (its last line), made printable. */
		while (res.output_len && (res.output[res.output_len - 1] == '\n'))
			res.output[--res.output_len] = 0;
		snprintf(err, errlen, "curl %s%s%s", why, res.output_len ? ": " : "",
			 res.output_len ? text_printable(strrchr(res.output, '\n') ?
							 strrchr(res.output, '\n') + 1 : res.output,
							 shown, sizeof(shown)) : "");
		goto out;
	}
	body = promapi_read_body(out, &len, err, errlen);
	if (!body)
		goto out;
	/* 200 with the answer; 4xx/5xx with an error answer of the API's:
	 * its words are better than a status code. */
	if (promapi_parse(body, len, v, err, errlen) == 0) {
		rc = 0;
	} else if (strncmp(res.output, "200", 3)) {
		char shown[200];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "HTTP status %s: %s",
			 text_printable(res.output, shown, sizeof(shown)), why);
	}
out:
	free(body);
	unlink(out);
	rmdir(dir);
	return rc;
}
