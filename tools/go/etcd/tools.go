//go:build tools

// Package tools names etcd's main package so that go mod tidy keeps what it needs.
package tools

import _ "go.etcd.io/etcd/server/v3"
