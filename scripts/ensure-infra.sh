#!/usr/bin/env bash
# Starts PostgreSQL, Redis and RabbitMQ on this machine when they are not running, and waits until they answer.
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- 3<&-; }

wait_port() {
  local name=$1 port=$2 tries=${3:-60}
  for _ in $(seq "$tries"); do
    port_open "$port" && return 0
    sleep 1
  done
  echo "error: $name did not come up on port $port" >&2
  return 1
}

# Debian's rabbitmq-server switches to the rabbitmq user with su, whose session limits allow 1,024 open files. The
# tests need more: every service declares the whole topology (about 36 quorum queues per test's prefix, a few files
# each), and a broker at that limit crashed once, its Mnesia tables lost. Started as that user directly, it gets the
# hard limit.
can_raise_rabbitmq_limit() {
  [ "$(id -u)" = 0 ] && [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] && id rabbitmq >/dev/null 2>&1
}
start_rabbitmq() {
  if can_raise_rabbitmq_limit; then
    su rabbitmq -s /bin/sh -c 'ulimit -n "$(ulimit -Hn)"; /usr/lib/rabbitmq/bin/rabbitmq-server -detached'
  else
    rabbitmq-server -detached
  fi
}
wait_rabbitmq() {
  wait_port RabbitMQ 5672 120
  # The AMQP port opens before the broker accepts work; wait for it to answer properly.
  if command -v rabbitmq-diagnostics >/dev/null 2>&1; then
    for _ in $(seq 60); do
      rabbitmq-diagnostics -q check_running >/dev/null 2>&1 && break
      sleep 1
    done
  fi
}
# The files the running broker may open (what its limit leaves it), or nothing when it cannot be asked.
rabbitmq_file_limit() {
  command -v rabbitmqctl >/dev/null 2>&1 || return 0
  local limit
  limit=$(timeout 30 rabbitmqctl eval 'file_handle_cache:get_limit().' 2>/dev/null | tail -1) || return 0
  [[ "$limit" =~ ^[0-9]+$ ]] && echo "$limit"
  return 0
}

if ! port_open 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
fi
if ! port_open 6379; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
if ! port_open 5672; then
  echo "starting RabbitMQ"
  start_rabbitmq
fi
wait_port PostgreSQL 5432
wait_port Redis 6379
wait_rabbitmq
limit=$(rabbitmq_file_limit)
if [ -n "$limit" ] && [ "$limit" -lt 4000 ]; then
  # Not restarted here: a broker holding many queues can take minutes to stop and boot again.
  echo "warning: RabbitMQ may open only $limit files, which the tests can exhaust; restart it with a higher limit" \
    "(as root: rabbitmqctl stop, then su rabbitmq -s /bin/sh -c 'ulimit -n \$(ulimit -Hn); /usr/lib/rabbitmq/bin/rabbitmq-server -detached')" >&2
fi
