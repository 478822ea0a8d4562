// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-net: TCP of the jobs that asked for it: retransmitted segments
 * (tcp:tcp_retransmit_skb) and connections established, made by connect()
 * or accepted (sock:inet_sock_set_state, into ESTABLISHED from SYN_SENT or
 * SYN_RECV).
 *
 * Both events mostly happen in softirq or timer context, where the current
 * task is unrelated: the job is the socket's, from the cgroup v2 directory
 * the socket was created in (sk->sk_cgrp_data); an accepted connection's
 * socket inherits the listening socket's.
 */
#define SPANK_DROPPED spank_net_dropped_total
#include "spank_job.bpf.h"

/* spank_net_dropped_total's map label (spank-net.yaml). */
#define SPANK_NET_MAP_RETRANSMITS 0
#define SPANK_NET_MAP_CONNECTIONS 1

#define SPANK_IPPROTO_TCP 6
#define SPANK_TCP_ESTABLISHED 1
#define SPANK_TCP_SYN_SENT 2
#define SPANK_TCP_SYN_RECV 3

#define SPANK_NET_CONNECT 0
#define SPANK_NET_ACCEPT 1

/* The socket's cgroup: a pointer from 5.15; before, a u64 that holds the
 * pointer unless its lowest bit says it holds net_prio/net_cls data. */
struct sock_cgroup_data {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct sock_cgroup_data___pre515 {
	__u64 val;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_cgroup_data sk_cgrp_data;
	__u16 sk_protocol; /* a bitfield before 5.6: read with ..._BITFIELD_PROBED */
} __attribute__((preserve_access_index));

struct sock___pre515 {
	struct sock_cgroup_data___pre515 sk_cgrp_data;
} __attribute__((preserve_access_index));

struct spank_net_job_key {
	__u32 job;
};

struct spank_net_conn_key {
	__u32 job;
	__u32 direction;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX); /* one key per job */
	__type(key, struct spank_net_job_key);
	__type(value, __u64);
} spank_net_tcp_retransmits_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * 2); /* connect, accept */
	__type(key, struct spank_net_conn_key);
	__type(value, __u64);
} spank_net_tcp_connections_total SEC(".maps");

static __always_inline struct cgroup *spank_sock_cgroup(struct sock *sk)
{
	__u64 val;

	if (bpf_core_field_exists(sk->sk_cgrp_data.cgroup))
		return BPF_CORE_READ(sk, sk_cgrp_data.cgroup);
	val = BPF_CORE_READ((struct sock___pre515 *)sk, sk_cgrp_data.val);
	if (val & 1)
		return 0;
	return (struct cgroup *)val;
}

static __always_inline __u32 spank_sock_job(struct sock *sk)
{
	if (!sk)
		return 0;
	return spank_job_of_cgroup(spank_sock_cgroup(sk), SPANK_JOB_NET);
}

SEC("raw_tp/tcp_retransmit_skb")
int spank_net_retransmit(struct bpf_raw_tracepoint_args *ctx)
{
	struct spank_net_job_key key = {};

	key.job = spank_sock_job((struct sock *)ctx->args[0]);
	if (!key.job)
		return 0;
	spank_add(&spank_net_tcp_retransmits_total, &key, 1, SPANK_NET_MAP_RETRANSMITS);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int spank_net_set_state(struct bpf_raw_tracepoint_args *ctx)
{
	struct sock *sk = (struct sock *)ctx->args[0];
	int oldstate = (int)ctx->args[1], newstate = (int)ctx->args[2];
	struct spank_net_conn_key key = {};

	if (newstate != SPANK_TCP_ESTABLISHED)
		return 0;
	if (oldstate == SPANK_TCP_SYN_SENT)
		key.direction = SPANK_NET_CONNECT;
	else if (oldstate == SPANK_TCP_SYN_RECV)
		key.direction = SPANK_NET_ACCEPT;
	else
		return 0;
	if (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol) != SPANK_IPPROTO_TCP)
		return 0;
	key.job = spank_sock_job(sk);
	if (!key.job)
		return 0;
	spank_add(&spank_net_tcp_connections_total, &key, 1, SPANK_NET_MAP_CONNECTIONS);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
