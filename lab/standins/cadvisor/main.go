// Command cadvisor-standin exports the same Prometheus metrics as the cAdvisor binary
// (container_cpu_user_seconds_total, container_memory_rss, ... with name, image and
// container_label_* labels), built from the cadvisor library module because the cAdvisor
// command module and its images cannot be fetched on registry-less hosts.
//
// It accepts the cAdvisor flags the lab's compose.yaml passes. Flags the library defines
// (housekeeping_interval, allow_dynamic_housekeeping, docker_only, ...) behave as in cAdvisor;
// flags it cannot honour are accepted, ignored and named in a log line. max_procs is cAdvisor's
// own (cmd/cadvisor.go setMaxProcs) and behaves as there.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/google/cadvisor/cache/memory"
	"github.com/google/cadvisor/container"
	_ "github.com/google/cadvisor/container/docker/install"
	v2 "github.com/google/cadvisor/info/v2"
	"github.com/google/cadvisor/manager"
	"github.com/google/cadvisor/metrics"
	"github.com/google/cadvisor/utils/sysfs"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// cAdvisor's own defaults (cmd/cadvisor.go) for the metrics it leaves out unless asked.
const defaultDisabled = "advtcp,cpu_topology,cpuset,hugetlb,memory_numa,process,referenced_memory,resctrl,sched,tcp,udp"

var (
	listenIP             = flag.String("listen_ip", "", "IP to listen on, defaults to all IPs")
	port                 = flag.Int("port", 8080, "port to listen")
	prometheusEndpoint   = flag.String("prometheus_endpoint", "/metrics", "Endpoint to expose Prometheus metrics on")
	storeContainerLabels = flag.Bool("store_container_labels", true, "export all container labels as container_label_* (as cAdvisor)")
	whitelistedLabels    = flag.String("whitelisted_container_labels", "", "comma separated labels to export when store_container_labels is false")
	storageDuration      = flag.Duration("storage_duration", 2*time.Minute, "How long to keep data stored")
	rawCgroupPrefixes    = flag.String("raw_cgroup_prefix_whitelist", "", "raw cgroup path prefixes to report with docker_only")
	envMetadata          = flag.String("env_metadata_whitelist", "", "container env variables to export")
	maxProcs             = flag.Int("max_procs", 0, "max number of CPUs that can be used simultaneously. Less than 1 for default (number of cores).")
	disabledMetrics      = container.MetricSet{}
	enabledMetrics       = container.MetricSet{}
)

func init() {
	_ = disabledMetrics.Set(defaultDisabled)
	flag.Var(&disabledMetrics, "disable_metrics", "comma-separated metrics to leave out")
	flag.Var(&enabledMetrics, "enable_metrics", "comma-separated metrics to include (overrides disable_metrics)")
}

// keepKnownFlags drops the flags this binary does not define, logging each one,
// so the compose file can pass the real cAdvisor's flags unchanged.
func keepKnownFlags(args []string) []string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			kept = append(kept, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		hasValue := strings.Contains(name, "=")
		name = strings.SplitN(name, "=", 2)[0]
		if flag.Lookup(name) != nil {
			kept = append(kept, a)
			continue
		}
		fmt.Fprintf(os.Stderr, "cadvisor-standin: flag --%s is not supported by the stand-in; ignored\n", name)
		// "--flag value": the next word is the value, unless it is a flag itself.
		if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
		}
	}
	return kept
}

func main() {
	klog.InitFlags(nil)
	if err := flag.CommandLine.Parse(keepKnownFlags(os.Args[1:])); err != nil {
		os.Exit(2)
	}
	// As cAdvisor's setMaxProcs: the flag, or every core (which overrides a GOMAXPROCS variable).
	if *maxProcs < 1 {
		runtime.GOMAXPROCS(runtime.NumCPU())
	} else {
		runtime.GOMAXPROCS(*maxProcs)
	}
	included := container.AllMetrics.Difference(disabledMetrics)
	if len(enabledMetrics) > 0 {
		included = enabledMetrics
	}
	// Perf events need a config file the lab does not give; leave them out as cAdvisor does then.
	included = included.Difference(container.MetricSet{container.PerfMetrics: struct{}{}})

	cache := memory.New(*storageDuration, nil)
	housekeeping := manager.HousekeepingConfig{
		Interval:     manager.HousekeepingInterval,
		AllowDynamic: manager.HousekeepingConfigFlags.AllowDynamic,
	}
	m, err := manager.New(cache, sysfs.NewRealSysFs(), housekeeping, included, http.DefaultClient,
		// cAdvisor splits these even when empty; the raw factory relies on one (empty) entry.
		strings.Split(*rawCgroupPrefixes, ","), strings.Split(*envMetadata, ","), "", 0)
	if err != nil {
		klog.Fatalf("creating the container manager: %v", err)
	}
	if err := m.Start(); err != nil {
		klog.Fatalf("starting the container manager: %v", err)
	}
	klog.Infof("cadvisor-standin: housekeeping %s (dynamic %v), metrics %s",
		*manager.HousekeepingInterval, *manager.HousekeepingConfigFlags.AllowDynamic, included)

	labels := metrics.DefaultContainerLabels
	if !*storeContainerLabels {
		labels = metrics.BaseContainerLabels(splitList(*whitelistedLabels))
	}
	reg := prometheus.NewRegistry()
	opts := v2.RequestOptions{IdType: v2.TypeName, Count: 1, Recursive: true}
	reg.MustRegister(
		metrics.NewPrometheusCollector(m, labels, included, clock.RealClock{}, opts),
		metrics.NewPrometheusMachineCollector(m, included),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	mux := http.NewServeMux()
	mux.Handle(*prometheusEndpoint, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	addr := net.JoinHostPort(*listenIP, fmt.Sprint(*port))
	klog.Infof("cadvisor-standin: serving %s on %s", *prometheusEndpoint, addr)
	klog.Fatal(http.ListenAndServe(addr, mux))
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
