// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// `tipledger testkit notification`: prints a signed notification webhook body.
struct TestkitNotificationCommand: Command {
    static let name = "testkit notification"
    static let summary = "sign a test notification"
    static var usage: String { TestkitCommand.usage }

    let type: String
    let subtype: String?
    let transactionToken: String?
    let options: TestkitTransactionOptions
    let revocationReason: Int32
    let revocationPercentage: Int32?
    let consumptionReason: String
    let uuid: String?
    let count: Int?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        guard let type = try scanner.value("--type")?.uppercased(), !type.isEmpty else {
            throw CLIError.usage("testkit notification needs --type, e.g. REFUND", command: TestkitCommand.name)
        }
        self.type = type
        subtype = try scanner.value("--subtype")?.uppercased()
        transactionToken = try scanner.value("--transaction")
        options = try TestkitTransactionOptions(parsing: &scanner, command: TestkitCommand.name)
        revocationReason = Int32(try scanner.integer("--revocation-reason", in: 0...1) ?? 0)
        if let percent = try scanner.value("--revocation-percentage") {
            guard let milli = StoreKitCatalog.decimalMilliunits(percent), milli > 0, milli <= 100_000 else {
                throw CLIError.usage(
                    "--revocation-percentage takes a percentage above 0 and up to 100, with at most three decimals "
                        + "(Apple's milliunits), not '\(percent)'", command: TestkitCommand.name)
            }
            revocationPercentage = Int32(milli)  // percent × 1000 = Apple's milliunits of a whole
        } else {
            revocationPercentage = nil
        }
        consumptionReason = try scanner.value("--consumption-reason")?.uppercased() ?? "UNINTENDED_PURCHASE"
        uuid = try scanner.value("--uuid")
        if let uuid, UUID(uuidString: uuid) == nil {
            throw CLIError.usage("--uuid takes a UUID", command: TestkitCommand.name)
        }
        count = try scanner.integer("--count", in: 1...10_000_000)
        try refuseConflicts()
    }

    /// Refuses options that would be left out without a word, or that cannot hold for every
    /// notification of a run.
    private func refuseConflicts() throws {
        if type == NotificationType.test.rawValue, transactionToken != nil {
            throw CLIError.usage(
                "a TEST notification is about no transaction; leave out --transaction", command: TestkitCommand.name)
        }
        guard count != nil else { return }
        if transactionToken != nil {
            throw CLIError.usage(
                "--count signs a transaction for each notification; leave out --transaction (--transaction - "
                    + "signs one notification per transaction on standard input)", command: TestkitCommand.name)
        }
        if uuid != nil {
            throw CLIError.usage(
                "--count gives each notification a UUID of its own; leave out --uuid", command: TestkitCommand.name)
        }
        if options.transactionId != nil || options.originalTransactionId != nil {
            throw CLIError.usage(
                "--count makes fresh transaction ids; leave out --transaction-id", command: TestkitCommand.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let keys = context.globals.keysDirectory else {
            throw CLIError.usage(
                "testkit notification needs --keys DIR (made by 'testkit init')", command: TestkitCommand.name)
        }
        let now = context.clock.now().wholeMilliseconds
        var signing = Signing(
            command: self, signer: try TestkitKeys.signer(from: keys),
            bundleId: TestkitCommand.bundleId(context.globals),
            environment: try TestkitCommand.environment(context.globals), now: now,
            signedDate: options.signedDate ?? now, appAppleId: context.globals.appAppleId,
            random: SeededGenerator(seed: UInt64.random(in: 0...UInt64.max)))
        switch transactionToken {
        case "-":
            try signAroundStandardInput(&signing, context)
        case let token?:
            let transaction = try Self.transaction(resigning: token, what: "--transaction")
            try checkAgreement(of: transaction, with: context.globals)
            for body in try signing.notifications(about: [transaction]) { context.terminal.line(body) }
        case nil:
            try signAroundNewTransactions(&signing, context)
        }
        return .success
    }

    /// Notifications in a run: at most this many are signed, then printed, at a time, so that
    /// memory stays flat however many there are.
    static let chunkSize = 4096

    /// One notification per signed transaction on standard input, in order; from a terminal,
    /// the first line's alone (looking for a second would wait for Ctrl-D).
    private func signAroundStandardInput(_ signing: inout Signing, _ context: CommandContext) throws {
        var reader = LineReader(fileDescriptor: context.inputDescriptor, maximumLineBytes: 1 << 16)
        let fromTerminal = isatty(context.inputDescriptor) == 1
        var lineNumber = 0
        var signed = 0
        while true {
            var transactions: [TestTransaction] = []
            while transactions.count < Self.chunkSize, !(fromTerminal && lineNumber > 0), let line = reader.next() {
                lineNumber += 1
                if line.isBlank { continue }
                let transaction = try Self.transaction(
                    resigning: line.text ?? "-", what: "line \(lineNumber) of standard input")
                try checkAgreement(of: transaction, with: context.globals)
                transactions.append(transaction)
            }
            try reader.checkStandardInputRead()
            if transactions.isEmpty { break }
            // Every notification would carry the same notificationUUID, and the ledger keeps
            // one notification per UUID.
            if uuid != nil, signed + transactions.count > 1 {
                throw CLIError(
                    .usage, "--uuid names one notification, and standard input has more than one transaction",
                    hint: "leave out --uuid: each notification then gets a UUID of its own")
            }
            for body in try signing.notifications(about: transactions) { context.terminal.line(body) }
            signed += transactions.count
            if context.terminal.outputFailure != nil { return }
        }
        guard signed > 0 else {
            throw CLIError(.usage, "--transaction - found no signed transaction on standard input")
        }
    }

    /// `--count` notifications (one by default), each about a transaction signed from the
    /// transaction options (none for TEST).
    private func signAroundNewTransactions(_ signing: inout Signing, _ context: CommandContext) throws {
        let total = count ?? 1
        let aboutTransactions = type != NotificationType.test.rawValue
        let catalog = aboutTransactions ? try context.globals.loadCatalog(warningsTo: context.terminal) : nil
        var progress = Progress(terminal: context.terminal, clock: context.clock)
        var remaining = total
        while remaining > 0 {
            let chunk = min(remaining, Self.chunkSize)
            let transactions = try (0..<chunk).map { _ -> TestTransaction? in
                guard aboutTransactions else { return nil }
                return try options.transaction(
                    bundleId: signing.bundleId, environment: signing.environment, catalog: catalog, now: signing.now,
                    random: &signing.random)
            }
            for body in try signing.notifications(about: transactions) { context.terminal.line(body) }
            remaining -= chunk
            if count != nil { progress.update(lines: total - remaining, of: total) }
            if context.terminal.outputFailure != nil { break }
        }
        if count != nil { progress.finish() }
    }

    /// What every notification of a run shares, and the signing of a chunk of them.
    private struct Signing {
        let command: TestkitNotificationCommand
        let signer: JWSSigner
        let bundleId: String
        let environment: AppStoreEnvironment
        /// Milliseconds since 1970: the run's time, a new transaction's default purchase date.
        let now: Int64
        /// The notifications' `signedDate`.
        let signedDate: Int64
        let appAppleId: Int64?
        var random: SeededGenerator

        /// The webhook bodies of notifications about `transactions`, in order (a nil one: a
        /// notification about no transaction, as TEST is); both kinds of JWS signed on every
        /// core.
        mutating func notifications(about transactions: [TestTransaction?]) throws -> [String] {
            var notifications: [TestNotification] = []
            // The notifications that carry a transaction, and its payload.
            var carrying: [(notification: Int, payload: [UInt8])] = []
            for transaction in transactions {
                var notification = TestNotification(
                    notificationType: command.type, subtype: command.subtype,
                    notificationUUID: command.uuid?.lowercased() ?? random.uuid(), signedDate: signedDate,
                    environment: environment.rawValue, bundleId: bundleId, appAppleId: appAppleId)
                if var transaction {
                    transaction.adjust(
                        for: command.type, signedDate: signedDate, revocationReason: command.revocationReason,
                        revocationPercentage: command.revocationPercentage)
                    // A notification is about its transaction's app and environment.
                    notification.environment = transaction.environment
                    notification.bundleId = transaction.bundleId
                    if command.type == NotificationType.consumptionRequest.rawValue {
                        notification.consumptionRequestReason = command.consumptionReason
                    }
                    carrying.append((notifications.count, transaction.payloadJSON))
                }
                // Apple's Production notifications name the app by its Apple ID, and verify
                // requires it.
                if notification.environment == AppStoreEnvironment.production.rawValue && appAppleId == nil {
                    throw CLIError.usage(
                        "a Production notification carries the app's Apple ID: give --app-apple-id",
                        command: TestkitCommand.name)
                }
                notifications.append(notification)
            }
            let signedTransactions = try ParallelSigner.sign(carrying.map(\.payload), with: signer)
            for (carrier, signed) in zip(carrying, signedTransactions) {
                notifications[carrier.notification].signedTransactionInfo = signed
            }
            return try ParallelSigner.sign(notifications.map(\.payloadJSON), with: signer).map(WebhookBody.wrapping)
        }
    }

    /// The fields of the signed transaction `token`, to sign again as a notification's;
    /// `what` names where it came from in the error.
    private static func transaction(resigning token: String, what: String) throws -> TestTransaction {
        do {
            return try TestTransaction(resigning: token)
        } catch {
            throw CLIError(.usage, "\(what) is not a signed transaction: \(error.message)")
        }
    }

    /// Refuses an `--environment` or `--bundle-id` that a transaction given with
    /// `--transaction` was not signed for: the notification takes the transaction's, and a
    /// verifier set up as the flags say would reject it.
    private func checkAgreement(of transaction: TestTransaction, with globals: GlobalOptions) throws {
        // As the verifier takes them: Xcode and LocalTesting under either name.
        let signedFor = AppStoreEnvironment(rawValue: transaction.environment)
        if globals.environmentFlagWasGiven,
            !globals.environments.contains(where: {
                $0 == signedFor || ($0.isLocalTesting && signedFor?.isLocalTesting == true)
            })
        {
            throw CLIError(
                .usage, "the transaction is signed for \(transaction.environment), not for --environment's",
                hint:
                    "leave out --environment (the notification takes the transaction's), or sign the transaction for it"
            )
        }
        if !globals.bundleIds.isEmpty, !globals.bundleIds.contains(transaction.bundleId) {
            throw CLIError(
                .usage,
                "the transaction is for the bundle id \(transaction.bundleId), which \(globals.bundleIdSource) does not list",
                hint: "leave out \(globals.bundleIdSource) (the notification takes the transaction's), or sign the"
                    + " transaction for it")
        }
    }
}
