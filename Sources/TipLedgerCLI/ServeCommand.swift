// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerHTTP
internal import TipLedgerPresentation
internal import TipLedgerStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// `tipledger serve`: the HTTP service the App Store posts notifications to and the app posts
/// its transactions to.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "run the HTTP service (notifications, transactions, restore, report)"
    static let usage = """
        Usage: tipledger serve [--listen HOST:PORT] [--api-token-file FILE] [options]

        Serves the ledger over HTTP (put it behind a TLS proxy):
          POST /v1/notifications                App Store Server Notifications V2 (register its URL)
          POST /v1/transactions                 a transaction JWS from the app (raw or
                                                {"signedTransaction":"..."})
          GET  /v1/accounts/{uuid}/transactions restore, as 'tipledger restore' (bearer token)
          GET  /v1/report?by=product&since=...  report, as 'tipledger report' (bearer token)
          GET  /healthz                         200 while the ledger answers and commits
          GET  /metrics                         Prometheus metrics
        One access-log line per request goes to standard error (never bodies or tokens).
        SIGTERM or SIGINT stops accepting, finishes requests in flight and exits 0.

        Options:
          --listen HOST:PORT      address to listen on [TIPLEDGER_LISTEN] (default 127.0.0.1:8080)
          --api-token-file FILE   bearer token for the query routes (or set TIPLEDGER_API_TOKEN);
                                  without one those routes answer 404
          --no-finish             record submitted transactions as pending
          --threads N             worker threads (default: one per core)
          --connection-limit N    simultaneous connections; more wait in the kernel's queue
                                  (default 4096, fewer if the open-file limit is lower)
          --connections-per-client N
                                  simultaneous connections from one address (default: no
                                  limit of its own; behind a proxy all come from the proxy)
          --timeout SECONDS       close connections silent this long (default 30)
          --header-timeout SECONDS
                                  close a connection whose next request's headers are not
                                  all in this long after it opened or its last answer,
                                  however they trickle (default 10)
          --write-queue-limit N   writes that may wait to be verified, and verified ones
                                  that may wait for the ledger; past either, a write is
                                  answered 503 with Retry-After
                                  [TIPLEDGER_WRITE_QUEUE_LIMIT] (default 1024)
          --sync-interval TIME    with App Store Server API credentials: sweep Apple's
                                  notification history this often, as 'sync' does (30s,
                                  15m, 1h; 0 for never) [TIPLEDGER_SYNC_INTERVAL]
                                  (default 1h); consumption requests are answered as they
                                  come when customers consented

        """ + "\n" + ConsumptionPolicy.usage + "\n\n" + APIOptions.usage + "\n"

    let configuration: HTTPServerConfiguration
    let tokenFile: String?
    let finish: Bool
    let api: APIOptions
    let consumption: ConsumptionPolicy.Flags
    let syncInterval: String?
    /// The size `serve` keeps the ledger's write-ahead log about (`Ledger.open`).
    static let logBound = 32 << 20
    /// `--write-queue-limit`, as given (checked against the variable's in `run`).
    let writeQueueLimit: Int?
    static let writeQueueLimits = 1...1_000_000

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        _ = try globals.format(allowing: [.text], command: Self.name)
        let listen = try Self.listenAddress(&scanner, globals: globals, command: Self.name)
        tokenFile = try scanner.path("--api-token-file", to: .file)
        finish = !scanner.flag("--no-finish")
        api = try APIOptions(parsing: &scanner)
        consumption = try ConsumptionPolicy.Flags(parsing: &scanner)
        syncInterval = try scanner.value("--sync-interval")
        var configuration = HTTPServerConfiguration(listenAddress: listen)
        if let threads = try scanner.integer("--threads", in: 1...256) { configuration.workerThreads = threads }
        let connections = 1...HTTPServerConfiguration.largestConnectionLimit
        if let limit = try scanner.integer("--connection-limit", in: connections) {
            configuration.connectionLimit = limit
        }
        if let limit = try scanner.integer("--connections-per-client", in: 0...connections.upperBound) {
            configuration.connectionsPerClient = limit
        }
        if let timeout = try scanner.integer("--timeout", in: 1...3600) {
            configuration.connectionTimeoutSeconds = timeout
        }
        if let timeout = try scanner.integer("--header-timeout", in: 1...3600) {
            configuration.headerDeadlineSeconds = timeout
        }
        writeQueueLimit = try scanner.integer("--write-queue-limit", in: Self.writeQueueLimits)
        // Checked before anything opens.
        guard configuration.connectionsPerClient <= configuration.connectionLimit else {
            throw CLIError.usage(
                "--connections-per-client (\(configuration.connectionsPerClient)) must be at most --connection-limit "
                    + "(\(configuration.connectionLimit))", command: Self.name)
        }
        guard configuration.connectionLimit >= configuration.workerThreads else {
            throw CLIError.usage(
                "--connection-limit (\(configuration.connectionLimit)) must be at least --threads "
                    + "(\(configuration.workerThreads)): each thread serves its share of the connections",
                command: Self.name)
        }
        do {
            try configuration.validate()
        } catch {
            throw CLIError.usage("\(error)", command: Self.name)
        }
        self.configuration = configuration
    }

    /// The bearer token: from `--api-token-file`, else `TIPLEDGER_API_TOKEN`; at least
    /// `TipLedgerService.shortestAPIToken` printable ASCII characters. A request's header is
    /// compared with it as text, into which bytes that are not UTF-8 were decoded as
    /// replacement characters: a token of ASCII alone cannot be matched by other bytes that
    /// decode alike.
    private func apiToken(_ context: CommandContext) throws -> String? {
        var token: String? = nil
        if let tokenFile {
            token = String(decoding: try FileInput.read(tokenFile, limit: 4096), as: UTF8.self)
            var status = stat()
            // Readable by its group or by everyone (whatever its directory allows).
            if stat(tokenFile, &status) == 0, status.st_mode & 0o044 != 0 {
                context.terminal.errorLine(
                    "hint: other users may read the API token file \(tokenFile); make it private: chmod 600 '\(tokenFile)'"
                )
            }
        } else if let value = context.environment["TIPLEDGER_API_TOKEN"], !value.isEmpty {
            token = value
        }
        guard let raw = token else { return nil }
        let trimmed =
            raw.trimmingSpaces().split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let shortest = TipLedgerService.shortestAPIToken
        guard trimmed.utf8.count >= shortest, trimmed.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw CLIError(
                .usage, "the API token must be at least \(shortest) printable ASCII characters without spaces",
                hint: "generate one with: openssl rand -hex 32")
        }
        return trimmed
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // Block SIGTERM and SIGINT before any thread starts, so every thread inherits the mask
        // and the signals wait for `sigwait` below. This also works as PID 1 in a container,
        // where the kernel drops signals that have no handler.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        defer { pthread_sigmask(SIG_UNBLOCK, &signals, nil) }

        let verifier = try context.verifier(for: Self.name)
        // Every setting is read before the ledger is opened, so a bad one creates no file.
        let apiToken = try apiToken(context)
        let catalog = try context.globals.loadCatalog(warningsTo: context.terminal)
        let queueLimit = try writeQueueLimit ?? Self.writeQueueLimit(context.environment["TIPLEDGER_WRITE_QUEUE_LIMIT"])
        let metrics = ServiceMetrics()
        let appStore = try appStoreSetup(context, metrics: metrics)
        // A shorter busy timeout than the CLI's: while another process writes for long, answer
        // 503 soon so the App Store retries, rather than holding the request. The log is kept
        // about `logBound` under writes that never stop (docs/performance.md), and a ledger made
        // here has the pages of small commits.
        let ledger = try context.openLedger(
            .record, busyTimeout: .seconds(5), logBound: Self.logBound, pages: .forSmallCommits)
        let terminal = context.terminal
        let sync = appStore.map { setup in
            ServeSync(
                connection: setup.connection, intake: SignedPayloadIntake(verifier: verifier, ledger: ledger),
                answerer: setup.policy.customersConsented
                    ? ConsumptionAnswerer(ledger: ledger, policy: setup.policy) : nil,
                interval: setup.interval, metrics: metrics, clock: context.clock, log: { terminal.errorLine($0) })
        }
        let service = TipLedgerService(
            verifier: verifier, ledger: ledger, apiToken: apiToken,
            catalog: catalog, finishesTransactions: finish, queryEnvironments: context.globals.givenEnvironments,
            clock: context.clock, metrics: metrics, writeQueueLimit: queueLimit,
            verificationThreads: configuration.workerThreads,
            log: { terminal.errorLine("error: \($0)") },
            notificationRecorded: { notification, result in
                if notification.rawNotificationType == NotificationType.consumptionRequest.rawValue,
                    result.outcome == .applied
                {
                    sync?.consumptionRequested()
                }
            })
        let clock = context.clock
        let listen = configuration.listenAddress
        var configuration = configuration
        let fitting = Self.connectionLimitFitting(configuration)
        if fitting < configuration.connectionLimit {
            terminal.errorLine(
                "the open-file limit leaves room for \(fitting) connections, not the \(configuration.connectionLimit) "
                    + "of --connection-limit; serving at most \(fitting) (raise it with ulimit -n)")
            configuration.connectionLimit = fitting
            configuration.connectionsPerClient = min(configuration.connectionsPerClient, fitting)
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(
                configuration: configuration,
                accessLog: { entry in
                    service.countTransportAnswer(entry)
                    terminal.errorLine(
                        AccessLogLine.format(
                            method: entry.method, path: entry.loggedPath, status: entry.status,
                            responseBytes: entry.responseBytes, durationMicroseconds: entry.durationMicroseconds,
                            remoteAddress: entry.remoteAddress, at: clock.now()))
                },
                answerer: service.answerer)
        } catch {
            throw CLIError(.ioError, "cannot serve on \(listen): \(error)")
        }
        let environments = context.globals.environments.sorted().map(\.rawValue).joined(separator: ",")
        terminal.errorLine(
            "tipledger \(CLI.version) serving http://\(listen.host):\(server.port) "
                + "(ledger \(context.globals.databasePath), environments \(environments), "
                + "bundle ids \(context.globals.bundleIds.joined(separator: ",")))")
        if apiToken == nil {
            terminal.errorLine(
                "no API token: restore and report answer 404; give one with --api-token-file or TIPLEDGER_API_TOKEN")
        }
        if let appStore { terminal.errorLine(appStore.summary) }
        sync?.start()

        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        // A second signal during the drain changes nothing: ignored (which also discards one
        // already pending), it neither cuts the drain short nor kills the process by its default
        // action once the mask is lifted on the way out, before the ledger is closed.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        terminal.errorLine("received signal \(received): finishing requests in flight")
        sync?.stop(upTo: .seconds(10))
        let drained = server.stop(gracePeriod: .seconds(10))
        terminal.errorLine(drained ? "stopped" : "stopped; some requests did not finish in time")
        return .success
    }
}

extension ServeCommand {
    /// Descriptors kept for everything but connections: the ledger's files (a database and its
    /// write-ahead log and shared memory for the writer and each reader, up to one reader per
    /// worker and eight kept idle), libmicrohttpd's epoll and wake-up descriptors (two per
    /// worker), the listening socket and the standard streams.
    static func descriptorsBesideConnections(workers: Int) -> Int { 64 + 8 * workers }

    /// Raises the process's soft limit on open files to its hard limit (a soft limit of 1024
    /// is common, as under systemd) and returns the connection limit that leaves room under it
    /// for everything else: `configuration.connectionLimit` or less, at least the worker count.
    /// Connections over the limit then wait in the kernel's queue, rather than take the
    /// descriptors the ledger needs to write.
    static func connectionLimitFitting(_ configuration: HTTPServerConfiguration) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return configuration.connectionLimit }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available =
            Int(clamping: limit.rlim_cur)
            - descriptorsBesideConnections(workers: configuration.workerThreads)
        return max(configuration.workerThreads, min(configuration.connectionLimit, available))
    }
}

extension ServeCommand {
    /// `TIPLEDGER_WRITE_QUEUE_LIMIT`'s limit (`text`), or the default when it is unset or empty.
    static func writeQueueLimit(_ text: String?) throws -> Int {
        guard let text, !text.isEmpty else { return GroupCommitter.defaultQueueLimit }
        guard let limit = Int(text), writeQueueLimits.contains(limit) else {
            throw CLIError.usage(
                "TIPLEDGER_WRITE_QUEUE_LIMIT must be a whole number from \(writeQueueLimits.lowerBound) to "
                    + "\(writeQueueLimits.upperBound), not '\(text)'", command: name)
        }
        return limit
    }

    /// `--listen`, else `TIPLEDGER_LISTEN`, else 127.0.0.1:8080; a bad address is blamed on
    /// whichever of the two gave it.
    static func listenAddress(_ scanner: inout ArgumentScanner, globals: GlobalOptions, command: String) throws
        -> ListenAddress
    {
        let flag = try scanner.value("--listen")
        let (text, source) =
            flag.map { ($0, "--listen") } ?? globals.listen.map { ($0, "TIPLEDGER_LISTEN") }
            ?? ("127.0.0.1:8080", "--listen")
        do {
            return try ListenAddress(parsing: text)
        } catch {
            throw CLIError.usage(
                "\(source) takes HOST:PORT with an IPv4 host, such as 0.0.0.0:8080, not '\(text)'", command: command)
        }
    }
}
