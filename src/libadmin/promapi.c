/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json.h>

#include "promapi.h"
#include "httpget.h"
#include "text.h"

/* Bounds on an answer's shape, checked on its bytes before json-c builds
 * its tree (which costs about 70 bytes a value, 800 an object: 8 MiB of
 * "{}," would take 2 GiB): values (keys count, as ',', ':' and '[' do),
 * objects and arrays. A sample takes 2 objects, 1 array, 6 values and 2
 * a label: 40,000 series of 20 labels fit. */
#define PROMAPI_TOKENS_MAX 2000000
#define PROMAPI_SAMPLES_MAX 50000
#define PROMAPI_OBJECTS_MAX (2 * PROMAPI_SAMPLES_MAX + 64)
#define PROMAPI_ARRAYS_MAX (PROMAPI_SAMPLES_MAX + 64)
/* Nesting json-c's tokener takes: an answer's is 5 (data.result[].metric). */
#define PROMAPI_DEPTH_MAX 16

void promapi_vector_free(struct promapi_vector *v)
{
	free(v->s);
	v->s = NULL;
	v->n = 0;
}

/* String s if it is one without a NUL (which a C string cannot carry),
 * else NULL. */
static const char *promapi_text(struct json_object *s)
{
	if (!json_object_is_type(s, json_type_string) ||
	    strlen(json_object_get_string(s)) != (size_t)json_object_get_string_len(s))
		return NULL;
	return json_object_get_string(s);
}

/* A sample's time: a finite number (json-c takes NaN and Infinity). */
static bool promapi_time(struct json_object *t)
{
	return (json_object_is_type(t, json_type_double) || json_object_is_type(t, json_type_int)) &&
	       isfinite(json_object_get_double(t));
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

/* The answer's bytes before json-c reads them: no NUL and no control
 * byte in a string (json-c takes a bare tab), and the shape within the
 * bounds above. Returns 0, or -1 with err. */
static int promapi_scan(const char *body, size_t len, char *err, size_t errlen)
{
	size_t i, tokens = 1, objects = 0, arrays = 0;
	bool in_string = false;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)body[i];

		if (c == 0) {
			snprintf(err, errlen, "JSON: a NUL byte at offset %zu", i);
			return -1;
		}
		if (in_string) {
			if (c < 0x20) {
				snprintf(err, errlen, "JSON: control character 0x%02x in a string at offset %zu", c, i);
				return -1;
			}
			if (c == '\\')
				i++; /* the escaped byte, a quote included */
			else if (c == '"')
				in_string = false;
			continue;
		}
		switch (c) {
		case '"':
			in_string = true;
			break;
		case '{':
			objects++;
			break;
		case '[':
			arrays++;
			tokens++;
			break;
		case ',':
		case ':':
			tokens++;
			break;
		}
	}
	if (tokens > PROMAPI_TOKENS_MAX || objects > PROMAPI_OBJECTS_MAX || arrays > PROMAPI_ARRAYS_MAX) {
		snprintf(err, errlen, "JSON: more than %d values, %d objects or %d arrays",
			 PROMAPI_TOKENS_MAX, PROMAPI_OBJECTS_MAX, PROMAPI_ARRAYS_MAX);
		return -1;
	}
	return 0;
}

/* body as one JSON text (the whole of it), or NULL with err. */
static struct json_object *promapi_json(const char *body, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *root = NULL;
	enum json_tokener_error e;
	size_t end;

	if (promapi_scan(body, len, err, errlen) < 0)
		return NULL;
	if (len > INT_MAX) {
		snprintf(err, errlen, "JSON: the text is too long");
		return NULL;
	}
	tok = json_tokener_new_ex(PROMAPI_DEPTH_MAX);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, body, (int)len);
	e = json_tokener_get_error(tok);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
	end = json_tokener_get_parse_end(tok);
#else
	end = (size_t)tok->char_offset;
#endif
	if (e == json_tokener_continue) {
		snprintf(err, errlen, "JSON: the text ends within a value (%zu bytes)", len);
	} else if (e != json_tokener_success) {
		snprintf(err, errlen, "JSON: %s at offset %zu", json_tokener_error_desc(e), end);
	} else {
		/* After the value: whitespace only, as RFC 8259 has it. */
		while (end < len && memchr(" \t\r\n", body[end], 4))
			end++;
		if (end < len)
			snprintf(err, errlen, "JSON: unexpected byte 0x%02x after the value at offset %zu",
				 (unsigned char)body[end], end);
	}
	json_tokener_free(tok);
	if (e != json_tokener_success || end < len) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

/* Member key of obj as promapi_text() has it, or NULL. */
static const char *promapi_string(struct json_object *obj, const char *key)
{
	struct json_object *s = NULL;

	if (!json_object_object_get_ex(obj, key, &s))
		return NULL;
	return promapi_text(s);
}

int promapi_parse(const char *body, size_t len, struct promapi_vector *v, char *err,
		  size_t errlen)
{
	struct json_object *root, *data = NULL, *result = NULL;
	const char *s;
	size_t i, n;
	int rc = -1;

	v->n = 0;
	v->s = NULL;
	root = promapi_json(body, len, err, errlen);
	if (!root)
		return -1;
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "the answer is not a JSON object");
		goto out;
	}
	s = promapi_string(root, "status");
	if (!s) {
		snprintf(err, errlen, "the answer has no \"status\"");
		goto out;
	}
	if (strcmp(s, "success")) {
		char text[600], shown[4 * sizeof(text)];
		const char *e = promapi_string(root, "error");

		/* Its words, cut if need be. */
		snprintf(text, sizeof(text), "%s", e ? e : "(no error text)");
		snprintf(err, errlen, "Prometheus: %s", text_printable(text, shown, sizeof(shown)));
		goto out;
	}
	if (!json_object_object_get_ex(root, "data", &data) ||
	    !json_object_is_type(data, json_type_object) ||
	    !(s = promapi_string(data, "resultType")) || strcmp(s, "vector")) {
		snprintf(err, errlen, "the answer is not an instant vector (data.resultType)");
		goto out;
	}
	if (!json_object_object_get_ex(data, "result", &result) ||
	    !json_object_is_type(result, json_type_array)) {
		snprintf(err, errlen, "the answer has no data.result array");
		goto out;
	}
	n = json_object_array_length(result);
	if (n > PROMAPI_SAMPLES_MAX) {
		snprintf(err, errlen, "the answer has more than %d samples", PROMAPI_SAMPLES_MAX);
		goto out;
	}
	v->s = calloc(n ? n : 1, sizeof(*v->s));
	if (!v->s) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct promapi_sample *o = &v->s[v->n];
		struct json_object *sample = json_object_array_get_idx(result, i), *metric = NULL,
				   *value = NULL;
		struct json_object_iterator it, stop;

		if (!json_object_is_type(sample, json_type_object) ||
		    !json_object_object_get_ex(sample, "metric", &metric) ||
		    !json_object_is_type(metric, json_type_object) ||
		    !json_object_object_get_ex(sample, "value", &value) ||
		    !json_object_is_type(value, json_type_array) || json_object_array_length(value) != 2) {
			snprintf(err, errlen, "a result without its metric object and [time, value] pair");
			goto out;
		}
		o->labels[0] = 0;
		stop = json_object_iter_end(metric);
		for (it = json_object_iter_begin(metric); !json_object_iter_equal(&it, &stop);
		     json_object_iter_next(&it)) {
			const char *name = json_object_iter_peek_name(&it),
				   *text = promapi_text(json_object_iter_peek_value(&it));

			if (!text || promapi_label_append(o->labels, sizeof(o->labels), name, text) < 0) {
				snprintf(err, errlen, "a result's labels are not strings with names as Prometheus has them, or are longer than %d bytes",
					 PROMAPI_LABELS_MAX - 1);
				goto out;
			}
		}
		if (!promapi_time(json_object_array_get_idx(value, 0))) {
			snprintf(err, errlen, "a result's time is not a number");
			goto out;
		}
		s = promapi_text(json_object_array_get_idx(value, 1));
		if (!s || promapi_value(s, &o->value) < 0) {
			snprintf(err, errlen, "a result's value is not a number in a string");
			goto out;
		}
		v->n++;
	}
	rc = 0;
out:
	if (rc < 0)
		promapi_vector_free(v);
	json_object_put(root);
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
	/* The whole query, connection included; the connection gets the
	 * same bound, not a shorter one of its own: loading the system's
	 * CAs and the TLS handshake on a loaded login node can take more
	 * than a few seconds, and timeout= is the bound the admin chose. */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)timeout * 1000);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout * 1000);
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
