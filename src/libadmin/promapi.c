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

#include <curl/curl.h>

#include "json.h"
#include "promapi.h"
#include "httpget.h"
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

double promapi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The handle kept between the queries of one struct promapi (its
 * connection reused), and the answer being read. */
struct promapi_conn {
	CURL *curl;
	char *body; /* at most PROMAPI_BODY_MAX bytes and a NUL */
	size_t len, cap;
	bool too_big, oom;
	char cerr[CURL_ERROR_SIZE];
};

void promapi_close(struct promapi *p)
{
	if (!p->conn)
		return;
	curl_easy_cleanup(p->conn->curl);
	free(p->conn->body);
	free(p->conn);
	p->conn = NULL;
}

/* The answer's body into memory, refused as soon as it would pass
 * PROMAPI_BODY_MAX, whatever its Content-Length said or did not say
 * (chunked): nothing else holds it, on disk or anywhere. */
static size_t promapi_body_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct promapi_conn *c = arg;
	size_t n = size * nmemb;

	if (n > PROMAPI_BODY_MAX - c->len) {
		c->too_big = true;
		return 0;
	}
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		char *nb;

		while (cap < c->len + n + 1)
			cap *= 2;
		if (cap > PROMAPI_BODY_MAX + 1)
			cap = PROMAPI_BODY_MAX + 1;
		nb = realloc(c->body, cap);
		if (!nb) {
			c->oom = true;
			return 0;
		}
		c->body = nb;
		c->cap = cap;
	}
	memcpy(c->body + c->len, data, n);
	c->len += n;
	c->body[c->len] = 0;
	return n;
}

/* p's handle, made with what stays the same across its queries. */
static struct promapi_conn *promapi_conn_of(struct promapi *p, char *err, size_t errlen)
{
	unsigned int timeout = p->timeout ? p->timeout : 10;
	struct promapi_conn *c;
	CURLcode e;

	if (p->conn)
		return p->conn;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->curl = http_curl_handle(true, err, errlen);
	if (!c->curl) {
		free(c);
		return NULL;
	}
	e = curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, promapi_body_write);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->cerr);
	/* Refused before a byte of it when the length is told. */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)PROMAPI_BODY_MAX);
	/* The whole query, connection included. */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)timeout * 1000);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout < 5 ? timeout : 5) * 1000);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	if (e == CURLE_OK && p->cacert && *p->cacert)
		e = curl_easy_setopt(c->curl, CURLOPT_CAINFO, p->cacert);
	if (e == CURLE_OK && p->netrc && *p->netrc) {
		e = curl_easy_setopt(c->curl, CURLOPT_NETRC, (long)CURL_NETRC_REQUIRED);
		if (e == CURLE_OK)
			e = curl_easy_setopt(c->curl, CURLOPT_NETRC_FILE, p->netrc);
	}
	if (e != CURLE_OK) {
		snprintf(err, errlen, "libcurl cannot be set up: %s", curl_easy_strerror(e));
		curl_easy_cleanup(c->curl);
		free(c);
		return NULL;
	}
	p->conn = c;
	return c;
}

/* endpoint?query=...&time=... into url (len bytes). */
static int promapi_query_url(const struct promapi *p, CURL *curl, const char *promql, double at, char *url,
			     size_t len, char *err, size_t errlen)
{
	char *q;
	int n;

	if (strlen("query=") + strlen(promql) >= 1024) {
		snprintf(err, errlen, "the query is too long");
		return -1;
	}
	q = curl_easy_escape(curl, promql, 0);
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = snprintf(url, len, "%s%sapi/v1/query?query=%s&time=%.3f", p->url,
		     p->url[strlen(p->url) - 1] == '/' ? "" : "/", q, at);
	curl_free(q);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "the query is too long");
		return -1;
	}
	return 0;
}

int promapi_query(struct promapi *p, const char *promql, double at,
		  struct promapi_vector *v, char *err, size_t errlen)
{
	char url[PROMAPI_URL_MAX + 3 * 1024 + 64], why[600], shown[4 * sizeof(why)];
	struct promapi_conn *c;
	long code = 0;
	CURLcode e;

	v->n = 0;
	v->s = NULL;
	if (httpurl_check(p->url, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "prometheus=: %s", why);
		return -1;
	}
	c = promapi_conn_of(p, err, errlen);
	if (!c)
		return -1;
	if (promapi_query_url(p, c->curl, promql, at, url, sizeof(url), err, errlen) < 0)
		return -1;
	e = curl_easy_setopt(c->curl, CURLOPT_URL, url);
	if (e != CURLE_OK) {
		snprintf(err, errlen, "libcurl takes no such URL: %s", curl_easy_strerror(e));
		return -1;
	}
	c->len = 0;
	c->too_big = c->oom = false;
	c->cerr[0] = 0;
	e = curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (c->too_big || e == CURLE_FILESIZE_EXCEEDED) {
		snprintf(err, errlen, "the answer is larger than %u MiB", PROMAPI_BODY_MAX >> 20);
		return -1;
	}
	if (c->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (e != CURLE_OK) {
		/* libcurl's words, made printable (a server's bytes may be in
		 * them). */
		snprintf(err, errlen, "no answer: %s",
			 text_printable(c->cerr[0] ? c->cerr : curl_easy_strerror(e), shown, sizeof(shown)));
		return -1;
	}
	if (code >= 300 && code < 400) {
		char *to = NULL;

		curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &to);
		snprintf(err, errlen, "HTTP status %ld: a redirect to \"%s\", not followed (prometheus= names where to ask)",
			 code, text_printable(to ? to : "", shown, sizeof(shown)));
		return -1;
	}
	/* 200 with the answer; 4xx/5xx with an error answer of the API's:
	 * its words are better than a status code. */
	if (promapi_parse(c->body ? c->body : "", c->len, v, err, errlen) == 0) {
		if (code == 200)
			return 0;
		promapi_vector_free(v);
		snprintf(err, errlen, "HTTP status %ld", code);
		return -1;
	}
	if (code != 200) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "HTTP status %ld: %s", code, why);
	}
	return -1;
}
