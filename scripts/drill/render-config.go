// Renders Temporal's docker/config_template.yaml from the environment, as the temporalio/server and auto-setup
// images do at start (with dockerize): Go templates where `.Env` is the environment and `default` takes the value
// first and the fallback second. Only the standard library, so `go run` needs nothing downloaded.
//
// Usage: go run render-config.go <template> <output>
package main

import (
	"fmt"
	"os"
	"strings"
	"text/template"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run render-config.go <template> <output>")
		os.Exit(2)
	}
	env := map[string]string{}
	for _, entry := range os.Environ() {
		name, value, _ := strings.Cut(entry, "=")
		env[name] = value
	}
	funcs := template.FuncMap{
		// An unset variable reads as "", which takes the fallback.
		"default": func(value string, fallback string) string {
			if value == "" {
				return fallback
			}
			return value
		},
		"lower": strings.ToLower,
		"split": strings.Split,
		"trim":  strings.TrimSpace,
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	parsed, err := template.New("config").Funcs(funcs).Option("missingkey=zero").Parse(string(text))
	if err != nil {
		fail(err)
	}
	out, err := os.Create(os.Args[2])
	if err != nil {
		fail(err)
	}
	defer out.Close()
	if err := parsed.Execute(out, map[string]any{"Env": env}); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "render-config:", err)
	os.Exit(1)
}
