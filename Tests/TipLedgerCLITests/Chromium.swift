// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

/// Headless Chromium (Debian's `chromium`), launched once per page: it loads the page, writes
/// the DOM it rendered (`--dump-dom`) and a screenshot of the window, and logs every network
/// request it made (`--log-net-log`), so a test sees what a reader's browser does with the page.
///
/// Its own requests (updates, sync) are told from the page's by their initiator: the browser's
/// carry none, a page's carry its origin. Host names resolve to nothing and the proxy is a
/// closed port, so nothing leaves the machine whatever is asked for; a request is still logged,
/// and a test sees it.
enum Chromium {
    static let executable = "/usr/bin/chromium"

    /// What a visit left: the rendered DOM, the screenshot, the page's own requests, the console
    /// lines, and how long the browser ran (start-up included).
    struct Visit {
        let dom: String
        let screenshot: PNGImage
        let screenshotPath: String
        /// URLs the page asked for (the navigation to the page itself is the browser's).
        let pageRequests: [String]
        /// Console lines: a Content-Security-Policy violation shows here.
        let console: [String]
        let seconds: Double
    }

    /// Whether Chromium is there to run; `scripts/install-deps` (`make deps`, which `make test`
    /// runs) installs it.
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Loads `url` in a window `width` by `height` pixels, in the dark colour scheme when `dark`,
    /// and saves the screenshot at `screenshot`.
    static func visit(
        _ url: String, width: Int = 1100, height: Int, dark: Bool = false, screenshot: String,
        in directory: TemporaryDirectory
    ) async throws -> Visit {
        let profile = directory.file("chromium-profile-\(UUID().uuidString)")
        let netLog = directory.file("netlog-\(UUID().uuidString).json")
        var arguments = [
            "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--mute-audio", "--user-data-dir=\(profile)",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            // A proxy nothing listens on: what the resolver would let through still goes nowhere.
            // Loopback bypasses proxies, so `serve` on 127.0.0.1 is reached.
            "--proxy-server=http://127.0.0.1:9", "--log-net-log=\(netLog)",
            "--enable-logging=stderr", "--v=0", "--window-size=\(width),\(height)", "--screenshot=\(screenshot)",
            "--dump-dom",
        ]
        // As root, Chromium refuses to start inside its sandbox.
        if geteuid() == 0 { arguments.append("--no-sandbox") }
        if dark { arguments.append("--force-dark-mode") }
        let started = ContinuousClock.now
        let result = try await Subprocess(
            executable: executable, arguments: arguments + [url], environment: Subprocess.baseEnvironment(),
            directory: directory.path
        ).run()
        let elapsed = ContinuousClock.now - started
        guard result.exited(0) else { throw ChromiumError("chromium failed on \(url): \(result.summary)") }
        return Visit(
            dom: result.out, screenshot: try PNGImage(contentsOf: screenshot), screenshotPath: screenshot,
            pageRequests: try pageRequests(inNetLog: netLog),
            console: result.errLines.filter { $0.contains(":CONSOLE") || $0.contains("Content Security Policy") },
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The URLs of the requests the net log says a page started: those with an initiator.
    static func pageRequests(inNetLog path: String) throws -> [String] {
        let log = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let root = log as? [String: Any], let constants = root["constants"] as? [String: Any],
            let types = constants["logEventTypes"] as? [String: Int], let start = types["URL_REQUEST_START_JOB"],
            let events = root["events"] as? [[String: Any]]
        else { throw ChromiumError("the net log at \(path) is not one Chromium writes") }
        return events.compactMap { event in
            guard event["type"] as? Int == start, let parameters = event["params"] as? [String: Any],
                let initiator = parameters["initiator"] as? String, initiator != "not an origin"
            else { return nil }
            return parameters["url"] as? String ?? "?"
        }
    }
}

/// Chromium could not be run or answered unexpectedly.
struct ChromiumError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
