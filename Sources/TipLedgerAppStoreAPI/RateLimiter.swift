// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCore

/// Keeps the client under Apple's rate for each endpoint, and holds an endpoint back until the
/// time a 429 named.
///
/// A token bucket per endpoint: it holds up to one second's worth of requests (at least one)
/// and refills at the endpoint's rate. A request takes a token, or reserves the next one to come
/// and waits for it, so concurrent callers queue in order. Times are milliseconds of the
/// client's clock; a clock stepping back refills nothing.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Double
        /// No request before this time (Apple's `Retry-After`).
        var heldUntil: Double

        /// A bucket not used yet: the first refill fills it to capacity.
        static let full = Bucket(tokens: 0, updatedAt: -Double.infinity, heldUntil: -Double.infinity)
    }

    private let rates: [Endpoint: Double]
    private let buckets = Mutex<[Endpoint: Bucket]>([:])

    /// Apple's rates for `environment`: the production ones, a tenth of them in the sandbox.
    init(environment: AppStoreEnvironment) {
        let share = environment == .production ? 1.0 : 0.1
        var rates: [Endpoint: Double] = [:]
        for endpoint in Endpoint.allCases { rates[endpoint] = endpoint.productionRequestsPerSecond * share }
        self.rates = rates
    }

    /// Takes a request's place for `endpoint` at `now` and returns how long to wait before
    /// sending it: zero when a token is free and nothing holds the endpoint.
    func reserve(_ endpoint: Endpoint, at now: AppleDate) -> Duration {
        let rate = rates[endpoint]!
        let capacity = max(1, rate)
        let time = now.milliseconds
        let waitMilliseconds = buckets.withLock { buckets in
            var bucket = buckets[endpoint] ?? Bucket.full
            let elapsed = max(0, time - bucket.updatedAt)
            bucket.tokens = min(capacity, bucket.tokens + elapsed * rate / 1000)
            bucket.updatedAt = max(bucket.updatedAt, time)
            let tokenWait = bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) / rate * 1000
            bucket.tokens -= 1
            buckets[endpoint] = bucket
            return max(tokenWait, bucket.heldUntil - time)
        }
        return .milliseconds(Int64(waitMilliseconds.rounded(.up)))
    }

    /// Holds every later request to `endpoint` until `time`.
    func hold(_ endpoint: Endpoint, until time: AppleDate) {
        buckets.withLock { buckets in
            var bucket = buckets[endpoint] ?? Bucket.full
            bucket.heldUntil = max(bucket.heldUntil, time.milliseconds)
            buckets[endpoint] = bucket
        }
    }
}
