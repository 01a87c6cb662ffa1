import { SafeHtml, html } from '../../src/kernel/index.js'

/**
 * The recorder page (`/recorder/<code>`), kept as TypeScript strings (the build copies no
 * other file into dist/). It is made to sit in a 640x480 frame of a third-party page; its
 * script (recorder.script.ts) does the recording and reads its settings from the data
 * attributes of `#recorder`.
 */

/** Pieces the page sends the recording in: small enough that a long recording streams and a lost piece costs little. */
export const RECORDER_PIECE_SIZE = 1024 * 1024

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#16181d;color:#eef0f4}
main{max-width:640px;margin:0 auto;padding:.75rem 1rem;display:grid;gap:.6rem}
h1{font-size:1.1rem;margin:0}
p{margin:0}
fieldset{border:0;padding:0;margin:0;display:flex;gap:1.25rem;flex-wrap:wrap}
legend{float:left;margin-right:1rem;font-weight:600}
.screen{position:relative;background:#000;border-radius:6px;min-height:3rem;display:grid;place-items:center;overflow:hidden}
video{display:block;width:100%;max-height:230px;background:#000}
video[hidden]{display:none}
.controls{display:flex;align-items:center;gap:.75rem;flex-wrap:wrap}
button{font:inherit;padding:.45rem 1.1rem;border:0;border-radius:4px;background:#2f6fdf;color:#fff;cursor:pointer}
button[aria-pressed="true"]{background:#c62828}
button:disabled{background:#5b6273;color:#c9cdd6;cursor:default}
button:focus-visible,input:focus-visible{outline:3px solid #ffd54f;outline-offset:2px}
#timer{font-variant-numeric:tabular-nums;font-size:1.1rem;min-width:3.5rem}
[data-state="recording"] #timer::before{content:"\\25CF ";color:#ff5252}
progress{width:100%;height:1rem}
#status{min-height:1.4em;color:#c9cdd6}
#alert{background:#5c1a1a;border-left:4px solid #ff6b6b;padding:.5rem .75rem;border-radius:4px}
#alert[hidden]{display:none}
.expires{color:#9aa1b0;font-size:.85rem}
`

// Our own constant, not data: inserted as is (escaping would break its quotes).
const STYLE_MARKUP = new SafeHtml(STYLE)

/** A complete page around `body`, with our own scripts only. */
function page(title: string, body: SafeHtml, script?: string): SafeHtml {
  return html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <link rel="icon" href="data:," />
        <title>${title}</title>
        <style>
          ${STYLE_MARKUP}
        </style>
      </head>
      <body>
        ${body} ${script ? html`<script src="${script}"></script>` : ''}
      </body>
    </html> `
}

/** What the recorder page needs: where to spend the code, how to cut the recording, until when it works. */
export interface RecorderPageData {
  /** The address that spends the code for upload links (relative to the page). */
  uploadLinks: string
  /** The script's address (relative to the page). */
  script: string
  /** Most pieces an upload may have (`files.max_chunks`): very long recordings get bigger pieces. */
  maxPieces: number
  expiresAt: Date
}

/** The recorder: kind of recording, live preview, start/stop, timer, playback, Send, progress, messages. */
export function recorderPage(data: RecorderPageData): SafeHtml {
  const body = html`<main
    id="recorder"
    data-state="loading"
    data-upload-links="${data.uploadLinks}"
    data-piece-size="${RECORDER_PIECE_SIZE}"
    data-max-pieces="${data.maxPieces}"
  >
    <h1>Record a video or a sound message</h1>
    <fieldset>
      <legend>Record</legend>
      <label><input type="radio" name="kind" value="video" checked disabled /> Video (camera and microphone)</label>
      <label><input type="radio" name="kind" value="audio" disabled /> Sound only (microphone)</label>
    </fieldset>
    <div class="screen">
      <video
        id="preview"
        muted
        autoplay
        playsinline
        hidden
        aria-label="Live picture of the camera (sound muted)"
      ></video>
      <video id="playback" controls playsinline hidden aria-label="Your recording, to play back before sending"></video>
    </div>
    <div class="controls">
      <button type="button" id="toggle" aria-pressed="false" disabled>Start recording</button>
      <span id="timer" role="timer" aria-label="Recording time">0:00</span>
      <button type="button" id="send" disabled>Send</button>
    </div>
    <progress id="progress" max="100" value="0" hidden aria-label="Sending progress"></progress>
    <p id="status" role="status" aria-live="polite"></p>
    <p id="alert" role="alert" hidden></p>
    <noscript><p role="alert">This recorder needs JavaScript: allow it for this page, then reload.</p></noscript>
    <p class="expires">
      This recorder sends one recording, until
      <time datetime="${data.expiresAt.toISOString()}">${data.expiresAt.toUTCString()}</time>.
    </p>
  </main>`
  return page('Recorder', body, data.script)
}

/** Why a recorder cannot be used, as its page says it. */
export const RECORDER_REFUSALS = {
  unknown: {
    title: 'Recorder not found',
    message: 'There is no such recorder: it may have expired and been removed. Reload the page that shows it.',
  },
  used: {
    title: 'Recorder already used',
    message:
      'This recorder was already used: a recorder sends one recording. Reload the page that shows it to get a new one.',
  },
  expired: {
    title: 'Recorder expired',
    message: 'This recorder has expired. Reload the page that shows it to get a new one.',
  },
} as const

/**
 * The page of a recorder that cannot be used, shaped as the kernel's error page
 * (`main[role=alert][data-status]`) but in the recorder's own head: its look, no indexing,
 * and an inline icon, so the browser asks for no `/favicon.ico` (not public here: a 401). No script.
 */
export function refusalPage(status: number, reason: keyof typeof RECORDER_REFUSALS): SafeHtml {
  const { title, message } = RECORDER_REFUSALS[reason]
  return page(
    title,
    html`<main role="alert" data-status="${status}" data-reason="${reason}">
      <h1>${title}</h1>
      <p>${message}</p>
    </main>`,
  )
}
