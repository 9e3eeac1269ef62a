package graph

import (
	"context"
	"fmt"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"

	"docsd/internal/errs"
)

// The public endpoint's default limits (README, "GraphQL for dashboard
// authors").
const (
	DefaultMaxBytes  = 256 << 10 // bytes of an operation document (and of a request body)
	DefaultMaxTokens = 3000      // lexical tokens of a document, comments excluded
	DefaultMaxDepth  = 20        // nesting of fields, fragments expanded
	DefaultMaxCost   = 20000     // schemaConfig's complexity, fragments and aliases expanded
	// DefaultMaxSubscriptions is how many subscriptions one WebSocket
	// connection may run at once.
	DefaultMaxSubscriptions = 20
)

// Limits bounds the work one operation on the public endpoint may ask
// for. A zero field takes its default; a negative one turns that limit
// off.
type Limits struct {
	MaxBytes  int
	MaxTokens int
	MaxDepth  int
	MaxCost   int
	// MaxSubscriptions bounds the subscriptions running at once on one
	// WebSocket connection (an SSE connection carries one).
	MaxSubscriptions int
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// withDefaults fills zero limits with the defaults.
func (l Limits) withDefaults() Limits {
	return Limits{
		MaxBytes:  orDefault(l.MaxBytes, DefaultMaxBytes),
		MaxTokens: orDefault(l.MaxTokens, DefaultMaxTokens),
		MaxDepth:  orDefault(l.MaxDepth, DefaultMaxDepth),
		MaxCost:   orDefault(l.MaxCost, DefaultMaxCost),

		MaxSubscriptions: orDefault(l.MaxSubscriptions, DefaultMaxSubscriptions),
	}
}

// subscriptionSlots counts the subscriptions running on one WebSocket
// connection; the connection's context carries it to every operation.
type subscriptionSlots struct {
	mu      sync.Mutex // guards running
	running int
	max     int
}

type subscriptionSlotsKey struct{}

// withSubscriptionSlots returns the context of a new connection that may
// run max subscriptions at once (no bound when max <= 0).
func withSubscriptionSlots(ctx context.Context, max int) context.Context {
	if max <= 0 {
		return ctx
	}
	return context.WithValue(ctx, subscriptionSlotsKey{}, &subscriptionSlots{max: max})
}

// takeSubscriptionSlot takes one of the connection's subscription slots
// (none to take outside a WebSocket connection) and returns the function
// that gives it back, which may be called more than once. A connection
// whose slots are taken gets a TooComplex error naming the limit.
func takeSubscriptionSlot(ctx context.Context) (release func(), err error) {
	s, ok := ctx.Value(subscriptionSlotsKey{}).(*subscriptionSlots)
	if !ok {
		return func() {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running >= s.max {
		return nil, &errs.Error{
			Kind: errs.TooComplex, Op: "graph.subscriptions",
			Message: fmt.Sprintf("Too many subscriptions on this connection: at most %d run at once; complete one first, or open another connection.", s.max),
			Details: map[string]any{"limit": "subscriptions per connection", "maximum": s.max, "actual": s.running + 1},
		}
	}
	s.running++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.running--
			s.mu.Unlock()
		})
	}, nil
}

// tooComplex is the TooComplex error of an operation over limit: which
// limit, its maximum and the operation's measure are in Details.
func tooComplex(limit string, maximum, actual int) error {
	return &errs.Error{
		Kind: errs.TooComplex, Op: "graph.limits",
		Message: fmt.Sprintf("The operation is too complex: its %s is %d, over the limit of %d.", limit, actual, maximum),
		Details: map[string]any{"limit": limit, "maximum": maximum, "actual": actual},
	}
}

// RequestTooLarge is the error of a /graphql request body of size bytes,
// over maxBytes: QUERY_TOO_COMPLEX, HTTP 413.
func RequestTooLarge(maxBytes int, size int64) error {
	return tooComplex("request size in bytes", maxBytes, int(size))
}

// limitsExtension rejects an operation over Limits before gqlgen parses
// and validates it, so that an oversized or exponential document costs
// linear time: size, then tokens (lexed, not parsed), then depth and cost
// computed on the parsed document with each fragment measured once.
type limitsExtension struct {
	limits Limits
	es     graphql.ExecutableSchema
}

var (
	_ graphql.HandlerExtension          = (*limitsExtension)(nil)
	_ graphql.OperationParameterMutator = (*limitsExtension)(nil)
)

func (*limitsExtension) ExtensionName() string { return "DocsdLimits" }

func (x *limitsExtension) Validate(es graphql.ExecutableSchema) error {
	x.es = es
	return nil
}

// MutateOperationParameters checks the operation; it never changes it.
func (x *limitsExtension) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if err := x.check(ctx, params); err != nil {
		return &gqlerror.Error{Message: err.Error(), Err: err}
	}
	return nil
}

func (x *limitsExtension) check(ctx context.Context, params *graphql.RawParams) error {
	l := x.limits
	if l.MaxBytes > 0 && len(params.Query) > l.MaxBytes {
		return tooComplex("size in bytes", l.MaxBytes, len(params.Query))
	}
	src := &ast.Source{Input: params.Query}
	if l.MaxTokens > 0 {
		if n := countTokens(src); n > l.MaxTokens {
			return tooComplex("token count", l.MaxTokens, n)
		}
	}
	if l.MaxDepth <= 0 && l.MaxCost <= 0 {
		return nil
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return nil // gqlgen reports the syntax error
	}
	m := newMeasurer(ctx, x.es, doc, params.Variables)
	for _, op := range doc.Operations {
		if params.OperationName != "" && op.Name != params.OperationName {
			continue
		}
		root := x.rootType(op.Operation)
		if root == nil {
			continue
		}
		got := m.selectionSet(root.Name, op.SelectionSet)
		if l.MaxDepth > 0 && got.depth > l.MaxDepth {
			return tooComplex("depth", l.MaxDepth, got.depth)
		}
		if l.MaxCost > 0 && got.cost > l.MaxCost {
			return tooComplex("cost", l.MaxCost, got.cost)
		}
	}
	return nil
}

func (x *limitsExtension) rootType(op ast.Operation) *ast.Definition {
	s := x.es.Schema()
	switch op {
	case ast.Mutation:
		return s.Mutation
	case ast.Subscription:
		return s.Subscription
	default:
		return s.Query
	}
}

// countTokens counts the lexical tokens of src up to the end or the first
// lexical error (which the parser then reports). Comments do not count.
func countTokens(src *ast.Source) int {
	lx := lexer.New(src)
	n := 0
	for {
		tok, err := lx.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return n
		}
		if tok.Kind != lexer.Comment {
			n++
		}
	}
}

// measure is the cost and depth of a selection set.
type measure struct{ cost, depth int }

// costCap bounds every cost: a document of nested fragments can describe
// a cost far beyond any integer, and anything over the cap is over every
// limit anyway.
const costCap = 1 << 40

// measurer computes measures with the schema's complexity functions
// (schemaConfig). Each fragment is measured once and its measure reused
// at every spread, so that the work is linear in the document even when
// the expanded operation is exponential. A fragment spread inside its own
// expansion (a cycle, which validation refuses) counts nothing.
type measurer struct {
	ctx    context.Context
	es     graphql.ExecutableSchema
	schema *ast.Schema
	doc    *ast.QueryDocument
	vars   map[string]any
	frags  map[string]measure
	busy   map[string]bool
}

func newMeasurer(ctx context.Context, es graphql.ExecutableSchema, doc *ast.QueryDocument, vars map[string]any) *measurer {
	return &measurer{ctx: ctx, es: es, schema: es.Schema(), doc: doc, vars: vars, frags: map[string]measure{}, busy: map[string]bool{}}
}

func (m *measurer) selectionSet(typeName string, set ast.SelectionSet) measure {
	var out measure
	add := func(x measure) {
		out.cost = min(out.cost+x.cost, costCap)
		out.depth = max(out.depth, x.depth)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			add(m.field(typeName, s))
		case *ast.InlineFragment:
			on := typeName
			if s.TypeCondition != "" {
				on = s.TypeCondition
			}
			add(m.selectionSet(on, s.SelectionSet))
		case *ast.FragmentSpread:
			add(m.fragment(s.Name))
		}
	}
	return out
}

func (m *measurer) fragment(name string) measure {
	if got, ok := m.frags[name]; ok {
		return got
	}
	def := m.doc.Fragments.ForName(name)
	if def == nil || m.busy[name] {
		return measure{}
	}
	m.busy[name] = true
	got := m.selectionSet(def.TypeCondition, def.SelectionSet)
	delete(m.busy, name)
	m.frags[name] = got
	return got
}

func (m *measurer) field(typeName string, f *ast.Field) measure {
	childType := ""
	if t := m.schema.Types[typeName]; t != nil {
		if def := t.Fields.ForName(f.Name); def != nil {
			childType = def.Type.Name()
		}
	}
	child := m.selectionSet(childType, f.SelectionSet)
	args := make(map[string]any, len(f.Arguments))
	for _, a := range f.Arguments {
		if v, err := a.Value.Value(m.vars); err == nil {
			args[a.Name] = v
		}
	}
	cost, ok := m.es.Complexity(m.ctx, typeName, f.Name, child.cost, args)
	if !ok || cost < 1 {
		cost = 1 + child.cost
	}
	return measure{cost: min(cost, costCap), depth: child.depth + 1}
}
