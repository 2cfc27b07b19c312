// Package judge scores records by benchmark: rubric programs and matchers
// decide on their own; LLM-judged checks become requests to a judge model.
package judge
