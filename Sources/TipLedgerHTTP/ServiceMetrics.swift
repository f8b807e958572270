// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
public import TipLedgerCore
public import TipLedgerStore

/// The service's counters and latency histogram, rendered in the Prometheus text format
/// (https://prometheus.io/docs/instrumenting/exposition_formats/).
///
/// Every label value comes from a fixed set (route names, status codes, error codes, known
/// notification types), so no request can grow the set of series. Safe to update from many
/// threads.
public final class ServiceMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct State {
        var requests: [String: Int] = [:]  // "route status"
        var verifications: [String: Int] = [:]  // "ok" or an error code
        var notifications: [String: Int] = [:]  // notification type
        var latency: [String: Histogram] = [:]  // by route
        var apiCalls: [String: Int] = [:]  // "endpoint status"
        var lastSweep: [String: Int64] = [:]  // environment: milliseconds since 1970
        var writeQueueRefusals = 0
        var verificationQueueRefusals = 0
    }

    private struct Histogram {
        var counts = [Int](repeating: 0, count: ServiceMetrics.latencyBuckets.count)
        var total = 0
        var sum = 0.0

        mutating func count(_ seconds: Double) {
            for (index, bound) in ServiceMetrics.latencyBuckets.enumerated() where seconds <= bound {
                counts[index] += 1
            }
            total += 1
            sum += seconds
        }
    }

    private let state = Mutex(State())

    public init() {}

    func countRequest(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests["\(route) \(status)", default: 0] += 1
            // Updated in place: a copy taken out of the dictionary would copy its counts.
            state.latency[route, default: Histogram()].count(seconds)
        }
    }

    func countVerification(_ outcome: String) {
        state.withLock { $0.verifications[outcome, default: 0] += 1 }
    }

    /// Counts a write answered 503 because the ledger's write queue was full.
    func countWriteQueueRefusal() {
        state.withLock { $0.writeQueueRefusals += 1 }
    }

    /// Counts a write answered 503 because too many waited to be verified.
    func countVerificationQueueRefusal() {
        state.withLock { $0.verificationQueueRefusals += 1 }
    }

    func countNotification(type: String) {
        state.withLock { $0.notifications[type, default: 0] += 1 }
    }

    /// Counts one exchange with the App Store Server API: its endpoint (`get_notification_history`)
    /// and Apple's status, or why no answer came (`timed_out`); both from fixed sets.
    public func countAPICall(endpoint: String, outcome: String) {
        state.withLock { $0.apiCalls["\(endpoint) \(outcome)", default: 0] += 1 }
    }

    /// Notes that a sweep of `environment`'s notification history completed at `milliseconds`.
    public func syncSweepCompleted(environment: String, at milliseconds: Int64) {
        state.withLock { $0.lastSweep[environment] = milliseconds }
    }

    /// The exposition text, with the ledger's `failedWrites` (`LedgerHealth.failedWrites`),
    /// every fault listed, so a rate can be taken from the first failure on, the groups the
    /// write routes' payloads were recorded in (`GroupCommitter.groupsWritten`), and with online
    /// checks, the revocation checker's `revocation` counts.
    public func render(
        failedWrites: [LedgerFault: Int] = [:], writeGroups: Int = 0, revocation: RevocationCounts? = nil
    ) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP tipledger_http_requests_total HTTP requests answered, by route and status.")
        lines.append("# TYPE tipledger_http_requests_total counter")
        for (key, count) in state.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ")
            lines.append("tipledger_http_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(count)")
        }
        lines.append("# HELP tipledger_verifications_total Signed payloads verified, by outcome (ok or error code).")
        lines.append("# TYPE tipledger_verifications_total counter")
        for (outcome, count) in state.verifications.sorted(by: { $0.key < $1.key }) {
            lines.append("tipledger_verifications_total{outcome=\"\(outcome)\"} \(count)")
        }
        lines.append("# HELP tipledger_notifications_total Verified notifications, by type.")
        lines.append("# TYPE tipledger_notifications_total counter")
        for (type, count) in state.notifications.sorted(by: { $0.key < $1.key }) {
            lines.append("tipledger_notifications_total{type=\"\(type)\"} \(count)")
        }
        lines.append(
            "# HELP tipledger_ledger_write_failures_total Writes to the ledger that failed to commit, by reason.")
        lines.append("# TYPE tipledger_ledger_write_failures_total counter")
        for fault in LedgerFault.allCases {
            lines.append(
                "tipledger_ledger_write_failures_total{reason=\"\(fault.rawValue)\"} \(failedWrites[fault, default: 0])"
            )
        }
        lines.append(
            "# HELP tipledger_write_queue_refusals_total Writes answered 503 because too many waited for the "
                + "ledger's writer.")
        lines.append("# TYPE tipledger_write_queue_refusals_total counter")
        lines.append("tipledger_write_queue_refusals_total \(state.writeQueueRefusals)")
        lines.append(
            "# HELP tipledger_verification_queue_refusals_total Writes answered 503 because too many waited to be "
                + "verified.")
        lines.append("# TYPE tipledger_verification_queue_refusals_total counter")
        lines.append("tipledger_verification_queue_refusals_total \(state.verificationQueueRefusals)")
        lines.append(
            "# HELP tipledger_write_groups_total Transactions the write routes' payloads were recorded in, "
                + "committed or failed.")
        lines.append("# TYPE tipledger_write_groups_total counter")
        lines.append("tipledger_write_groups_total \(writeGroups)")
        lines.append(
            "# HELP tipledger_app_store_api_requests_total Requests to the App Store Server API, by endpoint and "
                + "status (or the failure when no answer came).")
        lines.append("# TYPE tipledger_app_store_api_requests_total counter")
        for (key, count) in state.apiCalls.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ")
            lines.append(
                "tipledger_app_store_api_requests_total{endpoint=\"\(parts[0])\",status=\"\(parts[1])\"} \(count)")
        }
        lines.append(
            "# HELP tipledger_sync_last_success_timestamp_seconds When the last sweep of Apple's notification "
                + "history completed, by environment (UNIX time).")
        lines.append("# TYPE tipledger_sync_last_success_timestamp_seconds gauge")
        for (environment, milliseconds) in state.lastSweep.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "tipledger_sync_last_success_timestamp_seconds{environment=\"\(environment)\"} "
                    + "\(Double(milliseconds) / 1000)")
        }
        if let revocation {
            let counters = [
                ("tipledger_ocsp_requests_total", "Requests sent to OCSP responders.", revocation.requests),
                (
                    "tipledger_ocsp_cache_hits_total", "Revocation statuses answered from kept OCSP responses.",
                    revocation.cacheHits
                ),
                (
                    "tipledger_ocsp_shared_answers_total",
                    "Revocation statuses answered by an OCSP request another verification had out.",
                    revocation.sharedAnswers
                ),
                (
                    "tipledger_ocsp_unavailable_total",
                    "Revocation statuses without a trustworthy answer (responder down, forged or stale response).",
                    revocation.unavailable
                ),
                ("tipledger_ocsp_revoked_total", "Certificates found revoked.", revocation.revoked),
            ]
            for (name, help, value) in counters {
                lines.append("# HELP \(name) \(help)")
                lines.append("# TYPE \(name) counter")
                lines.append("\(name) \(value)")
            }
        }
        lines.append("# HELP tipledger_http_request_duration_seconds Time to answer a request, by route.")
        lines.append("# TYPE tipledger_http_request_duration_seconds histogram")
        for (route, histogram) in state.latency.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.latencyBuckets.enumerated() {
                lines.append(
                    "tipledger_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(histogram.counts[index])"
                )
            }
            lines.append(
                "tipledger_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.total)")
            lines.append("tipledger_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)")
            lines.append("tipledger_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.total)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
