import Foundation

/// Decodes image bytes with headless Chromium, to check our own decoders against a browser's pixels.
///
/// ```swift
/// let reference = try ChromiumImageReference.launch()
/// defer { reference.close() }
/// let expected = try reference.decode(pngBytes)   // width, height, RGBA
/// ```
/// One browser and one tab serve every call: the bytes go over as base64, the page decodes them with
/// `createImageBitmap(blob, {premultiplyAlpha: 'none', colorSpaceConversion, imageOrientation:
/// 'from-image'})`, uploads the bitmap to a WebGL2 texture (no premultiplication, no colour
/// conversion) and reads it back with `readPixels`; the RGBA comes back as base64. A call costs a few
/// milliseconds plus the decode, so dozens of images a test run are cheap.
///
/// Why WebGL and not a 2D canvas: a 2D canvas keeps premultiplied pixels, so `getImageData` cannot
/// give back the decoded colour of a pixel whose alpha is below 255 (200,100,50 at alpha 1 came back as
/// 255,0,0). A WebGL texture keeps the unpremultiplied bytes exactly.
///
/// What Chromium 156 does, measured with this class, that the comparisons depend on:
/// * 16-bit PNG samples become 8-bit by taking the high byte (0x12FF gives 0x12), not by rounding.
/// * EXIF orientation is always applied: `imageOrientation: 'none'` acts like `'from-image'` (the
///   spec renamed it), and CSS `image-orientation: none` is ignored for this page's opaque-origin
///   blobs. To compare an unrotated decode, set the orientation tag to 1 in the bytes first.
/// * With `.ignored` (the default) embedded colour information (ICC profiles, and for PNG the
///   gAMA/cHRM/sRGB/iCCP chunks) is not applied, so the pixels are the file's own samples. With
///   `.applied` Chromium converts to sRGB as a page would show it.
/// * An animated GIF or PNG gives its first frame.
package final class ChromiumImageReference: Sendable {
    /// Decoded pixels: row-major, top-down, 4 bytes a pixel (RGBA, not premultiplied).
    package struct Image: Sendable, Equatable {
        /// Width in pixels (after EXIF orientation).
        package let width: Int
        /// Height in pixels (after EXIF orientation).
        package let height: Int
        /// `width * height * 4` bytes.
        package let rgba: [UInt8]

        /// Makes an image; `rgba` must hold `width * height * 4` bytes.
        package init(width: Int, height: Int, rgba: [UInt8]) {
            self.width = width
            self.height = height
            self.rgba = rgba
        }
    }

    /// What Chromium made of some bytes.
    package enum Outcome: Sendable, Equatable {
        /// It decoded them.
        case decoded(Image)
        /// It refused them (the page's error text, e.g. "The source image could not be decoded.").
        case rejected(String)
    }

    /// Whether embedded colour information is applied.
    package enum ColorProfiles: String, Sendable {
        /// The file's own samples: no ICC, gamma or chromaticity conversion (`colorSpaceConversion: 'none'`).
        case ignored = "none"
        /// Converted to sRGB as a page shows it (`colorSpaceConversion: 'default'`).
        case applied = "default"
    }

    /// The browser that decodes.
    package let browser: Browser
    private let page: BrowserPage
    private let ownsBrowser: Bool
    /// One decode at a time: the page keeps one WebGL context and the calls share it.
    private let lock = NSLock()

    /// Starts a browser of its own (closed by `close()`).
    package static func launch() throws(BrowserError) -> ChromiumImageReference {
        let browser = try Browser.launch()
        do {
            return try ChromiumImageReference(browser: browser, ownsBrowser: true)
        } catch {
            browser.close()
            throw error
        }
    }

    /// Opens a tab of `browser` for decoding; `close()` closes the tab and leaves the browser running.
    package convenience init(browser: Browser) throws(BrowserError) {
        try self.init(browser: browser, ownsBrowser: false)
    }

    private init(browser: Browser, ownsBrowser: Bool) throws(BrowserError) {
        self.browser = browser
        self.ownsBrowser = ownsBrowser
        page = try browser.newPage(url: "about:blank")
        do {
            try page.evaluate(Self.decoderScript)
        } catch {
            page.close()
            throw error
        }
    }

    /// The RGBA Chromium decodes from `data`.
    /// - Throws: `.javaScript` with Chromium's reason when it cannot decode the bytes; other
    ///   `BrowserError`s when the browser fails.
    package func decode(_ data: Data, colorProfiles: ColorProfiles = .ignored) throws(BrowserError) -> Image {
        switch try outcome(of: data, colorProfiles: colorProfiles) {
        case .decoded(let image): return image
        case .rejected(let reason): throw .javaScript("Chromium could not decode the image: \(reason)")
        }
    }

    /// Decodes `data`, telling a refusal (`.rejected`) apart from a browser failure (thrown).
    package func outcome(of data: Data, colorProfiles: ColorProfiles = .ignored) throws(BrowserError) -> Outcome {
        let expression = "window.__galleryDecodeImage(\"\(data.base64EncodedString())\", \"\(colorProfiles.rawValue)\")"
        lock.lock()
        defer { lock.unlock() }
        let value = try page.evaluate(expression)
        guard let reply = value as? [String: Any] else { throw .unexpectedReply("an object from the image decoder") }
        if let error = reply["error"] as? String { return .rejected(error) }
        guard let width = (reply["width"] as? NSNumber)?.intValue, let height = (reply["height"] as? NSNumber)?.intValue,
              let base64 = reply["rgba"] as? String, let rgba = Data(base64Encoded: base64),
              rgba.count == width * height * 4
        else { throw .unexpectedReply("width, height and width*height*4 bytes of base64 RGBA") }
        return .decoded(Image(width: width, height: height, rgba: [UInt8](rgba)))
    }

    /// Closes the tab, and the browser too when `launch()` started it. Idempotent.
    package func close() {
        page.close()
        if ownsBrowser { browser.close() }
    }

    /// Installs `window.__galleryDecodeImage(base64, colorSpaceConversion)`, which resolves to
    /// `{width, height, rgba}` (rgba as base64) or `{error}`. The WebGL context, texture and
    /// framebuffer are made once and reused; the framebuffer's row 0 is the bitmap's top row (no
    /// UNPACK_FLIP_Y), so `readPixels` gives top-down rows.
    private static let decoderScript = """
        window.__galleryDecodeImage = async (base64, conversion) => {
          let bitmap;
          try {
            const bytes = Uint8Array.fromBase64(base64);
            bitmap = await createImageBitmap(new Blob([bytes]),
              {premultiplyAlpha: 'none', colorSpaceConversion: conversion, imageOrientation: 'from-image'});
          } catch (e) {
            return {error: String(e && e.message || e)};
          }
          const width = bitmap.width, height = bitmap.height;
          let state = window.__galleryDecodeState;
          if (!state || state.gl.isContextLost()) {
            const gl = new OffscreenCanvas(1, 1).getContext('webgl2',
              {premultipliedAlpha: false, antialias: false, alpha: true, depth: false, stencil: false});
            if (!gl) throw new Error('WebGL2 is not available');
            const texture = gl.createTexture();
            const framebuffer = gl.createFramebuffer();
            state = window.__galleryDecodeState = {gl, texture, framebuffer};
          }
          const gl = state.gl;
          if (width > gl.getParameter(gl.MAX_TEXTURE_SIZE) || height > gl.getParameter(gl.MAX_TEXTURE_SIZE)) {
            bitmap.close();
            throw new Error('image larger than the WebGL texture limit: ' + width + 'x' + height);
          }
          gl.bindTexture(gl.TEXTURE_2D, state.texture);
          gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
          gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
          gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
          gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
          bitmap.close();
          gl.bindFramebuffer(gl.FRAMEBUFFER, state.framebuffer);
          gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, state.texture, 0);
          if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) throw new Error('incomplete framebuffer');
          gl.pixelStorei(gl.PACK_ALIGNMENT, 1);
          const rgba = new Uint8Array(width * height * 4);
          gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
          const glError = gl.getError();
          if (glError !== gl.NO_ERROR) throw new Error('WebGL error ' + glError);
          return {width, height, rgba: rgba.toBase64()};
        };
        true
        """
}
