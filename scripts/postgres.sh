#!/usr/bin/env bash
# Starts the Debian PostgreSQL cluster (pg_ctlcluster) and creates the test role and database; exports
# RAMPART_TEST_POSTGRES_URL for the PostgreSQL store tests. Meant to be sourced. Without PostgreSQL the variable stays
# unset and those tests say they were skipped.
if command -v pg_lsclusters >/dev/null 2>&1; then
    cluster=$(pg_lsclusters --no-header 2>/dev/null | awk 'NR==1 {print $1" "$2}')
    if [ -z "$cluster" ]; then
        version=$(ls /usr/lib/postgresql | sort -n | tail -1)
        pg_createcluster "$version" main >/dev/null
        cluster="$version main"
    fi
    # shellcheck disable=SC2086
    pg_ctlcluster $cluster start 2>/dev/null || true
    port=$(pg_lsclusters --no-header | awk 'NR==1 {print $3}')
    as_postgres() { if [ "$(id -u)" -eq 0 ]; then su postgres -c "$1"; else sudo -u postgres sh -c "$1"; fi; }
    for _ in $(seq 1 30); do as_postgres "psql -p $port -tAc 'select 1'" >/dev/null 2>&1 && break; sleep 1; done
    # The suites run two at a time and each store opens a pool: the default 100 connections ran out under the whole
    # suite (a store test then waited for a connection and failed). Raised once, with a restart.
    if [ "$(as_postgres "psql -p $port -tAc 'show max_connections'" 2>/dev/null)" -lt 400 ] 2>/dev/null; then
        as_postgres "psql -p $port -qc 'alter system set max_connections = 400'" >/dev/null
        # shellcheck disable=SC2086
        pg_ctlcluster $cluster restart
        for _ in $(seq 1 30); do as_postgres "psql -p $port -tAc 'select 1'" >/dev/null 2>&1 && break; sleep 1; done
    fi
    as_postgres "psql -p $port -tAc \"select 1 from pg_roles where rolname='rampart'\"" | grep -q 1 ||
        as_postgres "psql -p $port -c \"create role rampart login password 'rampart'\"" >/dev/null
    as_postgres "psql -p $port -tAc \"select 1 from pg_database where datname='rampart_test'\"" | grep -q 1 ||
        as_postgres "createdb -p $port -O rampart rampart_test" >/dev/null
    export RAMPART_TEST_POSTGRES_URL="postgres://rampart:rampart@127.0.0.1:$port/rampart_test"
    echo "PostgreSQL ready: $RAMPART_TEST_POSTGRES_URL" >&2
fi
