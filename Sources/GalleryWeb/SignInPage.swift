import Foundation
import GalleryCrypto
import GalleryHTTP

/// The small HTML page `GET /` answers when the browser is not signed in (http-api.md section 2):
/// why, and how to get a new link with `gallery open`. The API's paths keep their JSON refusals.
/// Its one inline style sheet is allowed by its hash in this response's own CSP; nothing else may load.
enum SignInPage {
    /// Why the browser is not signed in.
    enum Reason: Equatable {
        /// No session cookie for this node.
        case missing
        /// A session that ended at this time.
        case expired(Date)
        /// A cookie this node did not make (or made with a token since replaced).
        case invalid
        /// A token link whose token is wrong.
        case wrongLink
    }

    /// The 401 response, as `text/html`.
    static func response(_ reason: Reason, origin: String) -> WebResponse {
        var response = WebResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"), contentType: "text/html; charset=utf-8",
                                   body: Array(html(reason, origin: origin).utf8))
        response.headers.add("Content-Security-Policy", contentSecurityPolicy)
        return response
    }

    /// What the page says about `reason`.
    static func explanation(_ reason: Reason) -> String {
        switch reason {
        case .missing:
            "This browser is not signed in to this node (it never was, or its cookie was removed)."
        case .expired(let date):
            "Your session ended on \(day(date)): a sign-in lasts 30 days."
        case .invalid:
            "This browser’s session is not valid for this node any more (its token was replaced)."
        case .wrongLink:
            "That sign-in link is not this node’s (its token is wrong or old)."
        }
    }

    /// `date` as YYYY-MM-DD (UTC).
    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    private static func html(_ reason: Reason, origin: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">
        <title>Sign in · Gallery</title><style>\(style)</style></head>
        <body><main>
        <h1>Sign in to this gallery</h1>
        <p>\(explanation(reason))</p>
        <p>For a new sign-in link, run this on the computer the node runs on, in the node’s directory:</p>
        <pre><code>gallery open</code></pre>
        <p class="small">or <code>gallery -C DIR open</code>, DIR being the node’s directory. It opens \(origin)/?token=… in
        your browser (<code>--print-only</code> prints it instead); a sign-in then lasts 30 days.</p>
        </main></body></html>

        """
    }

    private static let style = """
        :root{--bg:#f6f5f2;--panel:#fff;--ink:#1f2328;--muted:#5f646c;--code:#eceae4;font-family:system-ui,"DejaVu Sans",sans-serif}\
        @media (prefers-color-scheme:dark){:root{--bg:#141518;--panel:#1d1f23;--ink:#e7e8eb;--muted:#a4a9b1;--code:#2b2e33}}\
        body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--ink)}\
        main{max-width:34rem;margin:24px;padding:28px 32px;background:var(--panel);border-radius:14px;box-shadow:0 4px 24px #0000001a}\
        h1{font-size:22px;margin:0 0 12px}p{line-height:1.5}.small{color:var(--muted);font-size:14px}\
        code{background:var(--code);border-radius:5px;padding:1px 5px}pre code{display:block;padding:10px 14px;font-size:16px}
        """

    /// No script, no outside resource: only the inline style sheet above, by its hash.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'sha256-\(Data(SHA256.hash(Array(style.utf8))).base64EncodedString())'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
