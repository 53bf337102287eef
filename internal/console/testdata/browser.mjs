// The console in a real browser: run by TestConsoleInABrowser (cmd/toolstream)
// with node's working directory in testdata/js (where puppeteer-core is).
// It prints "STEP <name>" lines; the Go test answers some of them by doing
// something in the log (publishing a stream). Each page's screenshot goes
// to SHOTS/<page>.png. Any failed expectation throws: node exits non-zero
// and the Go test fails with this script's stderr.
import puppeteer from 'puppeteer-core';
import { createInterface } from 'node:readline';

const { URL: signinURL, VIEWER_URL: viewerURL, CHROMIUM, SHOTS, LONG_CALL } = process.env;
const lines = createInterface({ input: process.stdin });
const pending = [];
lines.on('line', l => { const w = pending.shift(); if (w) w(l); });
const step = async name => { console.log('STEP ' + name); };
const answer = () => new Promise(resolve => pending.push(resolve));
const wait = { timeout: 60000 };

function check(cond, what) { if (!cond) throw new Error('expected: ' + what); }

const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--lang=en-US'] });
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  let signedIn = false;
  page.on('response', r => { if (signedIn && r.status() >= 400) errors.push(r.status() + ' ' + r.url()); });
  page.on('dialog', d => d.type() === 'prompt' ? d.accept('现在只喝白开水') : d.accept());

  // No session: the sign-in page, 401.
  const origin = new URL(signinURL).origin;
  let res = await page.goto(origin + '/');
  check(res.status() === 401, 'the console without a session answers 401, got ' + res.status());
  check((await page.content()).includes('console-token'), 'the sign-in page says how to sign in');
  await page.screenshot({ path: SHOTS + '/signin.png' });

  // The one-time URL opens the form with the token filled in (it is after
  // #, never sent); it leaves the address bar; Sign in posts it.
  res = await page.goto(signinURL);
  check(res.status() === 200, 'the sign-in form, got ' + res.status());
  check(!page.url().includes('token'), 'the token is not left in the address: ' + page.url());
  check(!(await page.$('#live')), 'opening the link alone does not sign in');
  [res] = await Promise.all([page.waitForNavigation(), page.click('form button')]);
  check(res.status() === 200, 'signed in, got ' + res.status());
  signedIn = true;
  await page.waitForSelector('#live.on', wait);
  await page.waitForSelector('table#calls', wait);

  // Keyboard: the first Tab reaches the skip link, the next ones the pages.
  await page.keyboard.press('Tab');
  check(await page.evaluate(() => document.activeElement.className === 'skip'), 'the first Tab reaches "Skip to content"');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  check(await page.evaluate(() => document.activeElement.getAttribute('data-page') === 'calls'), 'Tab reaches the Calls link');

  // A call appears live, without reloading.
  await step('calls-ready');
  await answer(); // the Go test published the refund (and goes on with the others)
  const published = performance.now();
  await page.waitForFunction(id => [...document.querySelectorAll('#calls td a')].some(a => a.textContent === id), wait, LONG_CALL);
  console.log('MEASURE the refund stream published → its call on the page: ' + (performance.now() - published).toFixed(0) + ' ms'); // logged, never asserted
  await page.waitForFunction(() => document.querySelector('#calls').textContent.includes('inventory.get'), wait);
  await page.waitForFunction(() => document.querySelector('#calls').textContent.includes('acme'), wait);
  // Filters: one tenant, then one outcome.
  await page.select('#f-tenant', 'shop');
  check(!(await page.$eval('#calls tbody', t => t.textContent.includes('acme'))), 'the tenant filter leaves acme out');
  await page.select('#f-state', 'rejected');
  check(await page.$eval('#calls tbody', t => t.textContent.includes('No calls')), 'shop has no rejected call');
  await page.select('#f-state', '');
  await page.select('#f-tenant', '');
  const noReload = await page.evaluate(() => performance.getEntriesByType('navigation').length);
  check(noReload === 1, 'the page was not reloaded');
  await overflowCheck(page, 'calls');
  await page.screenshot({ path: SHOTS + '/calls.png', fullPage: true });

  // Approvals: approve the waiting refund by keyboard and see it run.
  await page.click('a[data-page=approvals]');
  await page.waitForSelector('#approvals article[aria-label="Approval of orders.refund"]', wait);
  await page.waitForFunction(() => document.querySelector('#approvals').textContent.includes('irreversible'), wait);
  await overflowCheck(page, 'approvals');
  await page.screenshot({ path: SHOTS + '/approvals.png', fullPage: true });
  await page.type('#reason-0', '客户已确认 — confirmed by phone');
  await page.focus('#approvals [data-action=approve]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => {
    const t = document.querySelector('#decided');
    return t && [...t.querySelectorAll('tr')].some(r => r.textContent.includes('orders.refund') && r.textContent.includes('succeeded'));
  }, wait);
  await page.screenshot({ path: SHOTS + '/approved.png', fullPage: true });

  // Its trace: open it from the decided list.
  await page.click('#decided td a');
  await page.waitForSelector('#timeline li', wait);
  const stages = await page.$$eval('#timeline li', lis => lis.map(li => li.className));
  for (const s of ['st-call', 'st-approval', 'st-result']) check(stages.includes(s), 'the timeline has a ' + s + ' step: ' + stages);
  await overflowCheck(page, 'call');
  await page.screenshot({ path: SHOTS + '/call.png', fullPage: true });

  // Answers: claims marked by verdict.
  await page.click('a[data-page=answers]');
  await page.waitForSelector('article.answer mark.v-supported', wait);
  const ev = await page.$eval('article.answer .evidence', e => e.textContent);
  check(ev.includes('/available') && ev.includes('12'), 'the supported claim shows its evidence pointer and value: ' + ev);
  await overflowCheck(page, 'answers');
  await page.screenshot({ path: SHOTS + '/answers.png', fullPage: true });

  // Runs: the tenant's runs, one opened to its rounds and calls.
  await page.click('a[data-page=runs]');
  await page.waitForSelector('#runs tr[data-run]', wait);
  await page.click('#runs tr[data-run="resp_demo_refund"] button');
  await page.waitForFunction(() => [...document.querySelectorAll('#runs tr.history-row')].some(r => r.textContent.includes('orders.refund')), wait);
  await overflowCheck(page, 'runs');
  await page.screenshot({ path: SHOTS + '/runs.png', fullPage: true });

  // Memory: a user's records; forget one.
  await page.click('a[data-page=memory]');
  await page.waitForSelector('#m-user', wait);
  await page.$eval('#m-tenant', el => { el.value = ''; });
  await page.type('#m-tenant', 'shop');
  await page.type('#m-user', 'u1');
  await page.click('form.filters button[type=submit]');
  await page.waitForSelector('#memory tr[data-id=tea]', wait);
  await page.click('#memory tr[data-id=tea] button[aria-expanded]'); // its versions
  await page.waitForSelector('#memory tr.history-row', wait);
  await overflowCheck(page, 'memory');
  await page.screenshot({ path: SHOTS + '/memory.png', fullPage: true });
  // Correct it: a third version that supersedes the second.
  await page.click('#memory tr[data-id=tea] [data-action=correct]');
  await page.waitForFunction(() => { const r = document.querySelector('#memory tr[data-id=tea]'); return r && r.textContent.includes('v3') && r.textContent.includes('白开水'); }, wait);
  await page.screenshot({ path: SHOTS + '/memory-corrected.png', fullPage: true });
  await page.click('#memory tr[data-id=tea] [data-action=forget]');
  await page.waitForFunction(() => !document.querySelector('#memory tr[data-id=tea]'), wait);
  await page.click('form.filters button[type=submit]'); // read again from the view
  await page.waitForFunction(() => !document.querySelector('#memory tr[data-id=tea]') && (document.querySelector('#memory') || document.querySelector('.empty')), wait);
  await page.screenshot({ path: SHOTS + '/memory-forgotten.png', fullPage: true });

  // Health.
  await page.click('a[data-page=health]');
  await page.waitForSelector('#projections', wait);
  await overflowCheck(page, 'health');
  await page.screenshot({ path: SHOTS + '/health.png', fullPage: true });

  // Laptop width and narrower: nothing overflows sideways.
  for (const width of [1024, 800]) {
    await page.setViewport({ width, height: 800 });
    for (const p of ['calls', 'approvals', 'answers', 'runs', 'health']) {
      await page.click(`a[data-page=${p}]`);
      await page.waitForSelector('main section', wait);
      await overflowCheck(page, p + '@' + width);
    }
  }
  await page.click('a[data-page=calls]');
  await page.waitForSelector('table#calls', wait);
  await page.screenshot({ path: SHOTS + '/calls-800.png', fullPage: true });

  // A viewer of shop, in a browser session of its own, never sees acme.
  const viewerCtx = await browser.createBrowserContext();
  const viewer = await viewerCtx.newPage();
  await viewer.setViewport({ width: 1280, height: 800 });
  await viewer.goto(viewerURL);
  await Promise.all([viewer.waitForNavigation(), viewer.click('form button')]);
  await viewer.waitForSelector('#live.on', wait);
  await viewer.waitForFunction(() => document.querySelector('#calls tbody a'), wait);
  check(!(await viewer.$('#f-tenant')), "a tenant's viewer gets no tenant filter");
  check(!(await viewer.$eval('main', m => m.textContent.includes('acme'))), "the viewer of shop sees nothing of acme");
  check((await viewer.$eval('#who', w => w.textContent)).includes('tenant shop'), 'the viewer is told its scope');
  const refused = await viewer.evaluate(() => fetch('/api/calls?tenant=acme').then(r => r.status));
  check(refused === 403, 'the viewer asking for acme gets 403, got ' + refused);
  await viewer.screenshot({ path: SHOTS + '/calls-viewer.png', fullPage: true });
  await viewerCtx.close();

  check(errors.length === 0, 'no script errors: ' + errors.join('; '));
  await step('done');
} finally {
  await browser.close();
  lines.close();
}

// overflowCheck fails when the page is wider than the window: a long id or
// Chinese text that does not wrap.
async function overflowCheck(page, what) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  check(scroll <= client, `${what}: the page is ${scroll}px wide in a ${client}px window`);
  const wide = await page.$$eval('.tablewrap, .card, .panel', els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.className + ' ' + e.scrollWidth + '>' + e.clientWidth));
  check(wide.length === 0, `${what}: boxes scroll sideways: ${wide}`);
}
