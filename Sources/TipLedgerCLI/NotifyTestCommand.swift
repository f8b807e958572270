// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore

/// `tipledger notify-test`: asks Apple to send a TEST notification to the app's server URL and
/// shows whether and how it arrived, so an operator knows the webhook works.
struct NotifyTestCommand: Command {
    static let name = "notify-test"
    static let summary = "have Apple send a test notification and show whether it arrived"
    static let usage = """
        Usage: tipledger notify-test [--wait SECONDS] [--token TOKEN]

        Asks Apple to send a TEST notification to the server URL set in App Store Connect
        (Request a Test Notification), then asks how it went (Get Test Notification Status)
        until Apple has tried, and shows each attempt and whether the notification verifies
        here. Production and Sandbox each have their URL: each environment of --environment is
        tested in turn.

        Options:
          --wait SECONDS        how long to wait for Apple's first attempt (default 60)
          --token TOKEN         ask only how the test notification with this token went (a
                                token is printed when one is requested)

        Exit status 0 when Apple reached the server, 1 when its attempts failed or none came
        in time, 69 when Apple could not be reached.

        """ + "\n" + APIOptions.usage + "\n"

    let wait: Int
    let token: String?
    let format: GlobalOptions.Format
    let api: APIOptions

    /// How often Apple is asked while it has not tried yet (its rate limit allows one request a
    /// second in Production, one in ten seconds in the sandbox; the client keeps to it).
    static let pollInterval: Duration = .seconds(2)

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text], command: Self.name)
        wait = try scanner.integer("--wait", in: 0...3600) ?? 60
        token = try scanner.value("--token")
        api = try APIOptions(parsing: &scanner)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let verifier = try context.verifier(for: Self.name)
        let connection = try api.connect(
            context, command: Self.name, observer: AppStoreConnection.notes(on: context.terminal))
        var reached = true
        for (environment, client) in connection.clients {
            let token: String
            if let given = self.token {
                token = given
            } else {
                guard let requested = try client.requestTestNotification().testNotificationToken else {
                    throw CLIError(.unavailable, "Request a Test Notification: Apple's answer holds no token")
                }
                token = requested
                context.terminal.line(
                    "\(environment.rawValue): Apple is sending a test notification (token \(token)); waiting up to "
                        + "\(wait) s for its first attempt")
            }
            context.terminal.flush()
            guard let status = try poll(client, token: token) else {
                context.terminal.line(
                    "\(environment.rawValue): Apple has not tried to send it after \(wait) s; "
                        + "ask again with: tipledger notify-test --token \(token)")
                reached = false
                continue
            }
            reached = show(status, environment: environment, verifier: verifier, context) && reached
        }
        return reached ? .success : .rejected
    }

    /// Apple's status once it has tried at least once, or nil when it has not within `wait`.
    private func poll(_ client: AppStoreServerAPIClient, token: String) throws -> CheckTestNotificationResponse? {
        let deadline = ContinuousClock.now + .seconds(wait)
        while true {
            do throws(AppStoreAPIError) {
                let status = try client.testNotificationStatus(token: token)
                if !status.sendAttempts.isEmpty { return status }
            } catch {
                // TestNotificationNotFoundError: Apple has not sent it yet.
                guard error.apple?.errorCode == 4_040_008 else { throw error }
            }
            guard ContinuousClock.now + Self.pollInterval <= deadline else { return nil }
            APIClock.system.sleep(for: Self.pollInterval)
        }
    }

    /// Prints each attempt and what the payload is; returns whether an attempt succeeded.
    private func show(
        _ status: CheckTestNotificationResponse, environment: AppStoreEnvironment, verifier: Verifier,
        _ context: CommandContext
    ) -> Bool {
        var reached = false
        for (index, attempt) in status.sendAttempts.enumerated() {
            let result = attempt.rawSendAttemptResult ?? "unknown"
            let when = attempt.attemptDate.map { " at \($0)" } ?? ""
            context.terminal.line("\(environment.rawValue): attempt \(index + 1)\(when): \(result)")
            if result == "SUCCESS" {
                reached = true
            } else if let hint = Self.hints[result] {
                context.terminal.errorLine("hint: \(hint)")
            }
        }
        if let payload = status.signedPayload {
            switch Result(catching: { () throws(VerificationError) in try verifier.verifyNotification(payload) }) {
            case .success(let notification):
                context.terminal.line(
                    "\(environment.rawValue): the notification verifies here: \(notification.rawNotificationType) "
                        + notification.notificationUUID)
            case .failure(let error):
                context.terminal.line(
                    "\(environment.rawValue): the notification does not verify here: \(error.code.rawValue): "
                        + error.message)
                context.terminal.errorLine(
                    "hint: 'serve' rejects it too (400): give it the same --keys, --bundle-id and --environment")
            }
        }
        return reached
    }

    /// What to look at for each way Apple's attempt can fail.
    static let hints: [String: String] = [
        "TIMED_OUT": "Apple waited too long for an answer: is serve running and reachable at the URL?",
        "TLS_ISSUE": "Apple could not make a TLS connection: check the certificate your proxy presents",
        "CIRCULAR_REDIRECT": "the URL redirects in a loop: give App Store Connect the final URL",
        "NO_RESPONSE": "nothing answered at the URL: is serve running behind your proxy?",
        "SOCKET_ISSUE": "the connection broke: check the proxy and the firewall",
        "UNSUPPORTED_CHARSET": "the answer's charset is not one Apple reads",
        "INVALID_RESPONSE": "the answer was not HTTP Apple could read: check the proxy",
        "PREMATURE_CLOSE": "the connection closed before the answer was complete",
        "UNSUCCESSFUL_HTTP_RESPONSE_CODE":
            "the server answered with an error: the URL must end in /v1/notifications, and serve must trust "
            + "Apple's root and accept the bundle id and environment",
    ]
}
