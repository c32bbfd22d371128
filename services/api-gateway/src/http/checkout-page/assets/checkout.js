// Hosted checkout: starts a payment session for the chosen method, shows how to pay, polls until the payment ends.
(function () {
  'use strict';

  var POLL_INTERVAL_MS = 2000;
  var REDIRECT_DELAY_MS = 1500;
  /** Consecutive failed polls before the buyer is told the connection is unstable (polling goes on). */
  var POLL_FAILURES_BEFORE_NOTICE = 3;
  var NETWORK_ERROR = 'Não foi possível conectar. Verifique sua internet e tente novamente.';
  /** What the buyer is told when the payment ended unpaid; each of these offers a new attempt. */
  var ENDED_MESSAGES = {
    expired: 'Pagamento expirado. O prazo para pagar terminou.',
    failed: 'Pagamento não concluído. Nenhum valor foi cobrado por este pedido.',
    cancelled:
      'Pagamento cancelado pela loja. Se algum valor chegou a ser pago, a loja o devolverá; você pode tentar de novo.',
  };

  var root = document.getElementById('checkout');
  if (!root) return;
  var sessionsUrl = root.getAttribute('data-sessions-url');

  var el = {
    choose: byId('choose'),
    chooseTitle: byId('choose-title'),
    pay: byId('pay'),
    payTitle: byId('pay-title'),
    instructions: byId('pay-instructions'),
    qr: byId('qr-code'),
    cryptoAmount: byId('crypto-amount'),
    cryptoAmountValue: byId('crypto-amount-value'),
    openWallet: byId('open-wallet'),
    codeLabel: byId('copia-e-cola-label'),
    code: byId('copia-e-cola'),
    copyButton: byId('copy-button'),
    copyFeedback: byId('copy-feedback'),
    countdown: byId('countdown'),
    status: byId('status'),
    retry: byId('retry'),
    changeMethod: byId('change-method'),
    // Absent when the checkout's cancel url is not http(s).
    cancelLink: byId('cancel-link'),
    // Present for a recurring product: the subscriber's name and CPF.
    buyerName: byId('buyer-name'),
    buyerDocument: byId('buyer-document'),
  };
  var BUYER_ERROR = 'Confira seu nome e CPF e tente novamente.';
  var methodButtons = Array.prototype.slice.call(root.querySelectorAll('button[data-method]'));

  /** The session being paid; replaced on retry so timers of an old session stop acting. */
  var current = null;

  methodButtons.forEach(function (button) {
    button.addEventListener('click', function () {
      startSession(button.getAttribute('data-method'), button.getAttribute('data-currency'));
    });
  });
  el.copyButton.addEventListener('click', copyCode);
  el.retry.addEventListener('click', showChoice);
  // The buyer may change their mind: the payment they leave is cancelled first, so it can never be paid as well.
  el.changeMethod.addEventListener('click', backToChoice);

  function byId(id) {
    return document.getElementById(id);
  }

  function setState(state) {
    root.setAttribute('data-state', state);
  }

  function showStatus(message, tone) {
    el.status.textContent = message;
    el.status.setAttribute('data-tone', tone || 'info');
  }

  function setBusy(busy) {
    root.setAttribute('aria-busy', busy ? 'true' : 'false');
    methodButtons.forEach(function (button) {
      button.disabled = busy;
    });
  }

  function startSession(method, currency) {
    var body = { method: method };
    if (currency) body.currency = currency;
    if (el.buyerName) {
      body.name = el.buyerName.value.trim();
      body.document = el.buyerDocument.value.trim();
      // A first check here; the server verifies the CPF's check digits and the name.
      if (!body.name || body.document.replace(/\D/g, '').length !== 11) {
        showStatus(BUYER_ERROR, 'error');
        (body.name ? el.buyerDocument : el.buyerName).focus();
        return;
      }
    }
    setBusy(true);
    setState('loading');
    showStatus('Gerando pagamento…');
    fetch(sessionsUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    })
      .then(readJson)
      .then(function (result) {
        setBusy(false);
        if (!result.ok || !result.data.session_id || !result.data.payment) {
          setState('choose');
          showStatus(errorMessage(result.data), 'error');
          return;
        }
        showPayment(result.data);
      })
      .catch(function () {
        setBusy(false);
        setState('choose');
        showStatus(NETWORK_ERROR, 'error');
      });
  }

  function readJson(response) {
    return response
      .json()
      .catch(function () {
        return null;
      })
      .then(function (data) {
        return { ok: response.ok, data: data || {} };
      });
  }

  function errorMessage(data) {
    var code = data.error && data.error.code;
    if (el.buyerName && (code === 'INVALID_FIELDS' || code === 'MISSING_FIELDS')) return BUYER_ERROR;
    return (data.error && data.error.message) || 'Algo deu errado ao iniciar o pagamento. Tente novamente.';
  }

  function showPayment(session) {
    var payment = session.payment;
    var isPix = payment.method === 'pix';
    var details = (isPix ? payment.pix : payment.crypto) || {};
    current = { id: session.session_id, expiresAt: Date.parse(payment.expires_at), done: false };

    el.payTitle.textContent = isPix ? 'Pague com PIX' : 'Pague com ' + details.currency;
    el.instructions.textContent = session.subscription_id
      ? 'Abra o app do seu banco e leia o QR code ou use o código copia e cola: o pagamento da primeira cobrança ' +
        'autoriza as próximas pelo Pix Automático.'
      : isPix
        ? 'Abra o app do seu banco, escolha pagar com PIX e leia o QR code ou use o código copia e cola.'
        : 'Leia o QR code com uma carteira Solana compatível (Solana Pay) ou abra o link na sua carteira.';
    if (details.qr_code) el.qr.src = details.qr_code;
    el.qr.alt = isPix ? 'QR code do PIX' : 'QR code do pagamento em ' + details.currency;
    el.codeLabel.textContent = isPix ? 'PIX copia e cola' : 'Link de pagamento (Solana Pay)';
    // textContent also sets the value of a textarea the buyer has not edited, so both read the same.
    el.code.textContent = (isPix ? details.copia_e_cola : details.payment_link) || '';
    el.copyButton.textContent = 'Copiar';
    el.copyFeedback.textContent = '';

    el.cryptoAmount.hidden = isPix;
    el.openWallet.hidden = isPix;
    if (isPix) {
      el.openWallet.removeAttribute('href');
    } else {
      el.cryptoAmountValue.textContent = formatTokenAmount(details.amount) + ' ' + details.currency;
      el.openWallet.href = details.payment_link;
    }

    el.choose.hidden = true;
    el.pay.hidden = false;
    el.retry.hidden = true;
    setState('pay');
    showStatus('Aguardando pagamento…');
    el.payTitle.focus();
    tick(current);
    poll(current);
  }

  function formatTokenAmount(amount) {
    return new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 6 }).format(Number(amount));
  }

  function tick(session) {
    if (session !== current || session.done) return;
    var remainingSeconds = Math.max(0, Math.ceil((session.expiresAt - Date.now()) / 1000));
    var minutes = Math.floor(remainingSeconds / 60);
    var seconds = remainingSeconds % 60;
    el.countdown.textContent = pad(minutes) + ':' + pad(seconds);
    if (remainingSeconds > 0) setTimeout(tick, 1000, session);
  }

  function pad(value) {
    return (value < 10 ? '0' : '') + value;
  }

  function poll(session) {
    session.failures = 0;
    schedule();

    function schedule() {
      setTimeout(check, POLL_INTERVAL_MS);
    }

    function check() {
      if (session !== current || session.done) return;
      fetch(sessionsUrl + '/' + encodeURIComponent(session.id), {
        headers: { Accept: 'application/json' },
        credentials: 'same-origin',
        cache: 'no-store',
      })
        .then(readJson)
        .then(function (result) {
          if (!result.ok) throw new Error('status request failed');
          session.failures = 0;
          handleStatus(session, result.data);
        })
        .catch(function () {
          session.failures += 1;
          if (session.failures === POLL_FAILURES_BEFORE_NOTICE) {
            showStatus('Conexão instável. Continuamos verificando o pagamento…', 'warning');
          }
        })
        .then(function () {
          if (session === current && !session.done) schedule();
        });
    }
  }

  function handleStatus(session, data) {
    if (session !== current) return;
    if (data.status === 'paid') {
      // A paid answer to going back may come before the session has its return url: polling goes on for it.
      session.done = Boolean(data.return_url);
      el.pay.hidden = true;
      // Paid: there is nothing left to cancel, only the way back to the shop.
      if (el.cancelLink) el.cancelLink.hidden = true;
      setState('paid');
      showStatus('Pagamento confirmado! Redirecionando para a loja…', 'success');
      if (isHttpUrl(data.return_url)) {
        setTimeout(function () {
          window.location.assign(data.return_url);
        }, REDIRECT_DELAY_MS);
      }
    } else if (session.leaving) {
      // Going back: its own answer decides what the buyer sees next.
    } else if (ENDED_MESSAGES[data.status]) {
      session.done = true;
      el.pay.hidden = true;
      setState(data.status);
      showStatus(ENDED_MESSAGES[data.status], 'error');
      el.retry.hidden = false;
      el.retry.focus();
    } else if (el.status.getAttribute('data-tone') === 'warning') {
      showStatus('Aguardando pagamento…');
    }
  }

  function isHttpUrl(url) {
    return typeof url === 'string' && /^https?:\/\//i.test(url);
  }

  /**
   * Cancels the payment being shown (the same cancel as the API's: the PIX cob removed, the crypto request closed)
   * before offering the choice again; if it was paid meanwhile, the page shows it paid instead.
   */
  function backToChoice() {
    var session = current;
    if (!session || session.done) return showChoice();
    session.leaving = true;
    el.changeMethod.disabled = true;
    showStatus('Cancelando este pagamento…');
    fetch(sessionsUrl + '/' + encodeURIComponent(session.id) + '/cancel', {
      method: 'POST',
      headers: { Accept: 'application/json' },
      credentials: 'same-origin',
    })
      .then(readJson)
      .then(function (result) {
        if (!result.ok || result.data.status === 'initiated') throw new Error('cancel refused');
        return result.data;
      })
      .then(
        function (data) {
          if (session !== current) return;
          el.changeMethod.disabled = false;
          session.leaving = false;
          if (data.status === 'paid') return handleStatus(session, data);
          session.done = true;
          showChoice();
        },
        function () {
          if (session !== current) return;
          el.changeMethod.disabled = false;
          session.leaving = false;
          showStatus('Não foi possível cancelar este pagamento. Tente novamente.', 'error');
        },
      );
  }

  function showChoice() {
    current = null;
    el.pay.hidden = true;
    el.retry.hidden = true;
    el.choose.hidden = false;
    el.qr.removeAttribute('src');
    el.code.textContent = '';
    setState('choose');
    showStatus('');
    el.chooseTitle.focus();
  }

  function copyCode() {
    var text = el.code.value;
    var copied =
      navigator.clipboard && window.isSecureContext
        ? navigator.clipboard.writeText(text).then(
            function () {
              return true;
            },
            function () {
              return copyBySelection();
            },
          )
        : Promise.resolve(copyBySelection());
    copied.then(function (ok) {
      el.copyButton.textContent = ok ? 'Copiado!' : 'Copiar';
      el.copyFeedback.textContent = ok
        ? 'Código copiado. Cole no app para pagar.'
        : 'Não foi possível copiar. Selecione o código e copie manualmente.';
      if (ok) {
        setTimeout(function () {
          el.copyButton.textContent = 'Copiar';
        }, 2000);
      }
    });
  }

  /** For browsers without the async clipboard API (or outside a secure context). */
  function copyBySelection() {
    el.code.focus();
    el.code.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
})();
