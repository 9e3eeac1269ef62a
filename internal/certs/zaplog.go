package certs

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapLogger is a zap logger (certmagic's) that writes into logger: what
// the orders do, and why one failed, shows in docsd's own log. Debug
// entries are left out.
func zapLogger(logger *slog.Logger) *zap.Logger {
	return zap.New(&slogCore{logger: logger.With("component", "certs")})
}

// slogCore is a zapcore.Core that hands entries to a slog.Logger.
type slogCore struct {
	logger *slog.Logger
	attrs  []any
}

func (c *slogCore) Enabled(l zapcore.Level) bool { return l >= zapcore.InfoLevel }

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{logger: c.logger, attrs: append(append([]any(nil), c.attrs...), attrsOf(fields)...)}
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	level := slog.LevelInfo
	switch {
	case e.Level >= zapcore.ErrorLevel:
		level = slog.LevelError
	case e.Level == zapcore.WarnLevel:
		level = slog.LevelWarn
	}
	args := append(append([]any(nil), c.attrs...), attrsOf(fields)...)
	if e.LoggerName != "" {
		args = append(args, "logger", e.LoggerName)
	}
	c.logger.Log(context.Background(), level, e.Message, args...)
	return nil
}

func (c *slogCore) Sync() error { return nil }

// attrsOf turns zap fields into slog's key-value pairs.
func attrsOf(fields []zapcore.Field) []any {
	if len(fields) == 0 {
		return nil
	}
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	args := make([]any, 0, 2*len(enc.Fields))
	for k, v := range enc.Fields {
		args = append(args, k, v)
	}
	return args
}
