// The batch pages' own script (/dashboard/assets/batches.js, assets.ts; only those pages and the
// watches page load it, so the others stay as light as they were). Both halves only enhance: without
// them the CSV is pasted into the form, and the batch page shows its state as of its loading.
// - Upload: a CSV file chosen or dropped on the drop zone is read here and sent as text (text/csv,
//   the CSRF token in x-csrf-token) to the form's data-upload (/dashboard/batches/upload, or the
//   watches page's), with the boxes ticked in the group the form's data-upload-list names as one
//   query parameter of ids separated by commas (the watches' endpoints); its answer says where to
//   go, or holds the refusal as the server renders it, whose "run the valid rows" button sends the
//   same file again with skipInvalid=1. The form's data-prefix names its elements' ids (batch-file…).
// - Progress: while the batch runs, its progress JSON is read every second and written into the
//   elements that name its fields (data-field), the bar, and the chart's bars and counts; once the
//   batch has ended, the page's two sections are read again and swapped in place (no reload).
export const BATCHES_JS = `
(function () {
  var form = document.querySelector('form[data-upload]');
  if (form) upload(form);
  var live = document.querySelector('[data-batch-poll]');
  if (live) follow(live);

  function size(bytes) {
    return bytes < 1024 * 1024 ? Math.max(1, Math.round(bytes / 1024)) + ' KB' : (bytes / 1024 / 1024).toFixed(1) + ' MB';
  }

  function upload(form) {
    var prefix = form.getAttribute('data-prefix') || 'batch';
    var zone = document.getElementById('dropzone');
    var input = document.getElementById(prefix + '-file');
    var chosen = document.getElementById(prefix + '-file-chosen');
    var problem = document.getElementById('upload-problem');
    var sending = document.getElementById(prefix + '-sending');
    var max = Number(form.getAttribute('data-max-bytes'));
    var list = form.getAttribute('data-upload-list');
    var busy = false;
    zone.hidden = false;
    function show() {
      var file = input.files && input.files[0];
      chosen.textContent = file ? 'Chosen: ' + file.name + ' (' + size(file.size) + ')' : '';
    }
    function say(message) {
      var div = document.createElement('div');
      div.className = 'notice bad';
      div.setAttribute('role', 'alert');
      div.textContent = message;
      problem.replaceChildren(div);
    }
    input.addEventListener('change', show);
    // A file dropped beside the zone would make the browser leave the page to open it.
    ['dragover', 'drop'].forEach(function (type) {
      window.addEventListener(type, function (event) {
        if (event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') !== -1) event.preventDefault();
      });
    });
    ['dragenter', 'dragover'].forEach(function (type) {
      zone.addEventListener(type, function (event) {
        event.preventDefault();
        zone.classList.add('dragging');
      });
    });
    ['dragleave', 'drop'].forEach(function (type) {
      zone.addEventListener(type, function () { zone.classList.remove('dragging'); });
    });
    zone.addEventListener('drop', function (event) {
      event.preventDefault();
      var files = event.dataTransfer && event.dataTransfer.files;
      if (!files || files.length === 0) return;
      input.files = files;
      show();
    });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      var skip = Boolean(event.submitter && event.submitter.name === 'skipInvalid');
      var file = input.files && input.files[0];
      if (file && file.size > max) {
        say('The file is ' + size(file.size) + ': at most ' + size(max) + ' can be sent at once. Split it into several.');
        return;
      }
      var query = [];
      if (skip) query.push('skipInvalid=1');
      if (list) {
        var ticked = Array.prototype.filter.call(form.elements, function (e) { return e.name === list && e.checked; });
        query.push(encodeURIComponent(list) + '=' + encodeURIComponent(ticked.map(function (e) { return e.value; }).join(',')));
      }
      busy = true;
      sending.textContent = file ? 'Sending ' + file.name + '…' : 'Sending…';
      // The file's bytes as they are: the service tells UTF-8 from Windows-1252 (Excel's CSV) itself.
      var body = file ? file.arrayBuffer() : Promise.resolve(form.elements.csv.value);
      body
        .then(function (body) {
          return fetch(form.getAttribute('data-upload') + (query.length > 0 ? '?' + query.join('&') : ''), {
            method: 'POST',
            credentials: 'same-origin',
            redirect: 'manual',
            headers: { 'content-type': 'text/csv', 'x-csrf-token': form.elements._csrf.value, accept: 'application/json' },
            body: body,
          });
        })
        .then(function (response) {
          // A session that ended: the page again, which sends to sign-in and back.
          if (response.type === 'opaqueredirect') return location.reload();
          if ((response.headers.get('content-type') || '').indexOf('application/json') !== 0) {
            return say(response.status === 403 ? 'This page has expired: reload it and send the file again.' : 'The upload failed (' + response.status + '): try again.');
          }
          return response.json().then(function (answer) {
            if (answer.location) return location.assign(answer.location);
            problem.innerHTML = answer.problem;
            var shown = problem.querySelector('[role=alert]');
            if (shown) shown.scrollIntoView({ block: 'nearest' });
          });
        })
        .catch(function () { say('The upload did not reach the service: check the connection and try again.'); })
        .then(function () {
          busy = false;
          sending.textContent = '';
        });
    });
  }

  function follow(live) {
    var url = live.getAttribute('data-batch-poll');
    var failures = 0;
    function tick() {
      fetch(url, { credentials: 'same-origin', redirect: 'manual', headers: { accept: 'application/json' } })
        .then(function (response) {
          if (!response.ok) throw new Error('progress answered ' + response.status);
          return response.json();
        })
        .then(function (progress) {
          failures = 0;
          update(progress);
          if (progress.ended) return swap();
          setTimeout(tick, 1000);
        })
        .catch(function () { if (++failures < 5) setTimeout(tick, 3000); });
    }
    function update(p) {
      live.querySelectorAll('[data-field]').forEach(function (element) {
        var value = p[element.getAttribute('data-field')];
        if (value !== undefined) element.textContent = value;
      });
      var bar = live.querySelector('progress');
      if (bar) {
        bar.value = p.percent;
        bar.textContent = p.percent + '%';
      }
      live.querySelectorAll('[data-count]').forEach(function (element) {
        element.textContent = (p.counts[element.getAttribute('data-count')] || 0).toLocaleString('en-US');
      });
      live.querySelectorAll('[data-bar]').forEach(function (rect) {
        var n = p.counts[rect.getAttribute('data-bar')] || 0;
        var full = Number(rect.getAttribute('data-full'));
        var width = n <= 0 || p.total <= 0 ? 0 : Math.max(2, (n / p.total) * full);
        rect.setAttribute('width', width.toFixed(1));
        // The count is drawn just after its bar.
        var count = rect.parentNode.querySelector('text[data-count="' + rect.getAttribute('data-bar') + '"]');
        if (count) count.setAttribute('x', (Number(rect.getAttribute('x')) + width + 4).toFixed(1));
      });
    }
    // The ended batch's page: its state, finish time and results replace the running ones.
    function swap() {
      return fetch(location.href, { credentials: 'same-origin' })
        .then(function (response) { return response.text(); })
        .then(function (text) {
          var page = new DOMParser().parseFromString(text, 'text/html');
          ['batch-live', 'batch-results'].forEach(function (id) {
            var fresh = page.getElementById(id);
            var old = document.getElementById(id);
            if (fresh && old) old.replaceWith(document.importNode(fresh, true));
          });
        });
    }
    setTimeout(tick, 500);
  }
})();
`;
